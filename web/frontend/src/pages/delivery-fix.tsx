// The delivery page's corrections: the geocoder's candidate (one click), the
// address search and the Fix form. All of them go through POST .../fix, the one validator.
import { useState } from 'preact/hooks';
import { ApiError, fieldError, post, toast } from '../api.ts';
import { percent } from '../format.ts';
import { t } from '../i18n.ts';
import type { ActionResult, DeliveryDetail, GeocodeSearchResult } from '../types.ts';

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
      toast(t('action.done.fix'));
    } catch (e) {
      toast((e as Error).message, true);
    } finally {
      setSaving(false);
    }
  }
  return (
    <s-section heading={t('fix.candidate.heading')}>
      <s-stack gap="base">
        <s-text>{c.formattedAddress}</s-text>
        <s-text color="subdued">
          {t('fix.candidate.detail', { lat: String(c.lat), lng: String(c.lng), sure: percent(c.confidence), precision: c.precision ?? 'none', provider: c.provider })}
        </s-text>
        <s-stack direction="inline">
          <s-button variant="primary" loading={saving} onClick={use}>
            {t('fix.candidate.use')}
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
          {t('fix.search')}
        </s-button>
      </s-stack>
      {error && <s-banner tone="critical">{error}</s-banner>}
      {places && places.length === 0 && <s-text color="subdued">{t('fix.search.none')}</s-text>}
      {places && places.length > 0 && (
        <s-unordered-list>
          {places.map((p) => (
            <s-list-item key={`${p.lat},${p.lng}`}>
              {t('fix.search.place', { address: p.formattedAddress, lat: String(p.lat), lng: String(p.lng), sure: percent(p.confidence) })}{' '}
              <s-button variant="tertiary" onClick={() => props.onPick(p)} accessibilityLabel={t('fix.search.useLabel', { address: p.formattedAddress })}>
                {t('fix.search.use')}
              </s-button>
            </s-list-item>
          ))}
        </s-unordered-list>
      )}
    </s-stack>
  );
}

// The fields our own request validation can refuse (web/order/snapshot.ts FIXABLE_TEXT).
const TEXT_FIELDS: Array<[string, (d: DeliveryDetail) => string | null | undefined]> = [
  ['name', (d) => d.dropoff?.name],
  ['address1', (d) => d.dropoff?.address1],
  ['address2', (d) => d.dropoff?.address2],
  ['city', (d) => d.dropoff?.city],
  ['email', () => null],
];
const OPTIONAL_TEXT = new Set(['address2', 'email']);

/** `primary`: this form is what fixes the delivery's problem, so its Save is the page's primary button. */
export function FixForm(props: { delivery: DeliveryDetail; primary: boolean; onFixed: (d: DeliveryDetail) => void }) {
  const d = props.delivery;
  const [phone, setPhone] = useState('');
  const [lat, setLat] = useState('');
  const [lng, setLng] = useState('');
  const [text, setText] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const phoneProblem = d.attention?.code === 'invalid_phone' || d.attention?.code === 'missing_phone';
  const mapProblem = ['missing_coordinates', 'geocode_no_result', 'geocode_low_confidence'].includes(d.attention?.code ?? '') || !!errors.latitude || !!errors.longitude;
  // A refused name, address or e-mail, or a correction already typed or refused there: the text fields stay open.
  const textProblem = d.attention?.code === 'invalid_field' || TEXT_FIELDS.some(([k]) => !!errors[k]);

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
      toast(t('action.done.fix'));
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.errors).length) {
        setErrors(e.errors);
        setError(null);
      } else {
        setError((e as Error).message);
      }
      toast(t('fix.notSaved'), true);
    } finally {
      setSaving(false);
    }
  }

  // What the reason is about shows open; the other corrections are one click away.
  const mapFields = (
    <>
      <s-stack direction="inline" gap="base">
        <s-text-field label={t('fix.latitude')} value={lat} error={fieldError(errors, 'latitude')} placeholder="-26.1076" details={mapProblem ? t('fix.latitude.details') : undefined} onInput={(e) => setLat(e.currentTarget.value)} />
        <s-text-field label={t('fix.longitude')} value={lng} error={fieldError(errors, 'longitude')} placeholder="28.0567" onInput={(e) => setLng(e.currentTarget.value)} />
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
    </>
  );
  const textFields = (
    <>
      {TEXT_FIELDS.map(([k, current]) => (
        <s-text-field
          key={k}
          label={t(`fix.field.${k}`)}
          value={text[k] ?? ''}
          error={fieldError(errors, k)}
          placeholder={current(d) ?? ''}
          details={OPTIONAL_TEXT.has(k) ? t('fix.keepOrRemove') : t('fix.keep')}
          onInput={(e) => setText({ ...text, [k]: e.currentTarget.value })}
        />
      ))}
    </>
  );
  return (
    <s-section heading={t('fix.heading')}>
      <s-stack gap="base">
        <s-paragraph>{t('fix.intro')}</s-paragraph>
        {error && <s-banner tone="critical">{error}</s-banner>}
        <s-text-field
          label={t('fix.phone')}
          value={phone}
          error={fieldError(errors, 'phone')}
          placeholder={d.dropoff?.phone ?? t('fix.phone.placeholder')}
          details={phoneProblem ? t('fix.phone.needed', { country: d.dropoff?.countryCode ?? '' }) : t('fix.keep')}
          onInput={(e) => setPhone(e.currentTarget.value)}
        />
        {mapProblem ? mapFields : null}
        {textProblem ? textFields : null}
        {(!mapProblem || !textProblem) && (
          <details class="fold">
            <summary>{t('fix.more')}</summary>
            <s-stack gap="base">
              {!mapProblem && mapFields}
              {!textProblem && textFields}
            </s-stack>
          </details>
        )}
        <s-stack direction="inline">
          <s-button variant={props.primary ? 'primary' : 'secondary'} loading={saving} onClick={save}>
            {t('fix.save')}
          </s-button>
        </s-stack>
      </s-stack>
    </s-section>
  );
}
