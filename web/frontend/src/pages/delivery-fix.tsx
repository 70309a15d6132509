// The delivery page's corrections: the geocoder's candidate (one click), the
// address search and the Fix form. All of them go through POST .../fix, the one validator.
import { useState } from 'preact/hooks';
import { ApiError, fieldError, post, toast } from '../api.ts';
import type { ActionResult, DeliveryDetail, GeocodeSearchResult } from '../types.ts';

const pct = (n: number) => `${Math.round(n * 100)}%`;

/** The geocoder's place for an address it was not sure of: one click fixes the delivery with its coordinates. */
export function CandidateCard(props: { delivery: DeliveryDetail; onFixed: (d: DeliveryDetail) => void }) {
  const d = props.delivery;
  const c = d.geocodeCandidate!;
  const [saving, setSaving] = useState(false);
  async function use() {
    setSaving(true);
    try {
      const res = await post<ActionResult>(`/api/deliveries/${d.id}/fix`, { latitude: c.lat, longitude: c.lng });
      props.onFixed(res.delivery);
      toast(res.message);
    } catch (e) {
      toast((e as Error).message, true);
    } finally {
      setSaving(false);
    }
  }
  return (
    <s-section heading="Location the geocoder found">
      <s-stack gap="base">
        <s-text>{c.formattedAddress}</s-text>
        <s-text color="subdued">
          {c.lat}, {c.lng} · {pct(c.confidence)} sure{c.precision ? ` (${c.precision} match)` : ''} · {c.provider}
        </s-text>
        <s-stack direction="inline">
          <s-button variant="primary" loading={saving} onClick={use}>
            Use this location
          </s-button>
        </s-stack>
      </s-stack>
    </s-section>
  );
}

type Place = GeocodeSearchResult['places'][number];

/** Looks the address up once per press (no type-ahead: Nominatim's usage policy); a place fills latitude and longitude. */
function AddressSearch(props: { delivery: DeliveryDetail; address1: string; city: string; onPick: (p: Place) => void }) {
  const d = props.delivery;
  const [places, setPlaces] = useState<Place[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [searching, setSearching] = useState(false);
  async function search() {
    setSearching(true);
    setError(null);
    try {
      const a = d.dropoff;
      const res = await post<GeocodeSearchResult>('/api/geocode', {
        address1: props.address1 || a?.address1 || '', city: props.city || a?.city || '', province: a?.province ?? null, zip: a?.zip ?? null, countryCode: a?.countryCode ?? '',
      });
      setPlaces(res.places);
    } catch (e) {
      setPlaces(null);
      setError(e instanceof ApiError && Object.keys(e.errors).length ? Object.entries(e.errors).map(([k, v]) => `${k}: ${v}`).join('; ') : (e as Error).message);
    } finally {
      setSearching(false);
    }
  }
  return (
    <s-stack gap="small-200">
      <s-stack direction="inline">
        <s-button loading={searching} onClick={search}>
          Find the address on the map
        </s-button>
      </s-stack>
      {error && <s-banner tone="critical">{error}</s-banner>}
      {places && places.length === 0 && <s-text color="subdued">No place found for this address; enter the coordinates.</s-text>}
      {places && places.length > 0 && (
        <s-unordered-list>
          {places.map((p) => (
            <s-list-item key={`${p.lat},${p.lng}`}>
              {p.formattedAddress} ({p.lat}, {p.lng}; {pct(p.confidence)} sure){' '}
              <s-button variant="tertiary" onClick={() => props.onPick(p)}>
                Use
              </s-button>
            </s-list-item>
          ))}
        </s-unordered-list>
      )}
    </s-stack>
  );
}

// The fields our own request validation can refuse (web/dispatch/order.ts FIXABLE_TEXT).
const TEXT_FIELDS: Array<[string, string, (d: DeliveryDetail) => string | null | undefined]> = [
  ['name', 'Recipient name', (d) => d.dropoff?.name],
  ['address1', 'Street address', (d) => d.dropoff?.address1],
  ['address2', 'Address line 2', (d) => d.dropoff?.address2],
  ['city', 'City', (d) => d.dropoff?.city],
  ['email', 'E-mail', () => null],
];
const OPTIONAL_TEXT = new Set(['address2', 'email']);

export function FixForm(props: { delivery: DeliveryDetail; onFixed: (d: DeliveryDetail) => void }) {
  const d = props.delivery;
  const [phone, setPhone] = useState('');
  const [lat, setLat] = useState('');
  const [lng, setLng] = useState('');
  const [text, setText] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const phoneProblem = d.attention?.code === 'invalid_phone' || d.attention?.code === 'missing_phone';
  const mapProblem = d.attention?.code === 'missing_coordinates' || d.attention?.code === 'geocode_no_result' || d.attention?.code === 'geocode_low_confidence';

  async function save() {
    const body: Record<string, unknown> = {};
    if (phone.trim()) body.phone = phone.trim();
    if (lat.trim() || lng.trim()) {
      body.latitude = lat.trim();
      body.longitude = lng.trim();
    }
    for (const [k, v] of Object.entries(text)) if (v !== '') body[k] = v.trim();
    setSaving(true);
    try {
      const res = await post<ActionResult>(`/api/deliveries/${d.id}/fix`, body);
      setErrors({});
      setError(null);
      setPhone('');
      setLat('');
      setLng('');
      setText({});
      props.onFixed(res.delivery);
      toast(res.message);
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.errors).length) {
        setErrors(e.errors);
        setError(null);
      } else {
        setError((e as Error).message);
      }
      toast('Not saved: check the highlighted fields', true);
    } finally {
      setSaving(false);
    }
  }

  return (
    <s-section heading="Fix and retry">
      <s-stack gap="base">
        <s-paragraph>Correct the customer’s phone number, the address’s map location, or a name, address or e-mail the courier request cannot take. The order is then sent again with the correction; the Shopify order itself is not changed.</s-paragraph>
        {error && <s-banner tone="critical">{error}</s-banner>}
        <s-text-field
          label="Phone number"
          value={phone}
          error={fieldError(errors, 'phone')}
          placeholder={d.dropoff?.phone ?? 'e.g. 082 555 1234'}
          details={phoneProblem ? `The courier needs a valid ${d.dropoff?.countryCode ?? ''} mobile number.` : 'Leave empty to keep the order’s phone number.'}
          onInput={(e) => setPhone(e.currentTarget.value)}
        />
        <s-stack direction="inline" gap="base">
          <s-text-field label="Latitude" value={lat} error={fieldError(errors, 'latitude')} placeholder="-26.1076" details={mapProblem ? 'Decimal degrees of the delivery address.' : undefined} onInput={(e) => setLat(e.currentTarget.value)} />
          <s-text-field label="Longitude" value={lng} error={fieldError(errors, 'longitude')} placeholder="28.0567" onInput={(e) => setLng(e.currentTarget.value)} />
        </s-stack>
        {d.geocoder && (
          <AddressSearch
            delivery={d}
            address1={(text.address1 ?? '').trim()}
            city={(text.city ?? '').trim()}
            onPick={(p) => {
              setLat(String(p.lat));
              setLng(String(p.lng));
            }}
          />
        )}
        {TEXT_FIELDS.map(([k, label, current]) => (
          <s-text-field
            key={k}
            label={label}
            value={text[k] ?? ''}
            error={fieldError(errors, k)}
            placeholder={current(d) ?? ''}
            details={OPTIONAL_TEXT.has(k) ? 'Leave empty to keep it; to remove it, type a space.' : 'Leave empty to keep the order’s value.'}
            onInput={(e) => setText({ ...text, [k]: e.currentTarget.value })}
          />
        ))}
        <s-stack direction="inline">
          <s-button variant="primary" loading={saving} onClick={save}>
            Save and retry
          </s-button>
        </s-stack>
      </s-stack>
    </s-section>
  );
}
