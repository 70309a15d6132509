// One delivery: status, what needs fixing, the merchant's actions, the
// courier booking, the timeline and the exact request/response exchanged.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, fieldError, post, toast } from '../api.ts';
import { ErrorBanner, Field, Loading, StatusBadge } from '../components/common.tsx';
import { humanize, money, prettyJson, when } from '../format.ts';
import { linkTo } from '../router.ts';
import { useResource } from '../state.ts';
import type { Action, ActionResult, DeliveryDetail, GeocodeSearchResult } from '../types.ts';

const ACTION_LABELS: Record<Exclude<Action, 'fix'>, string> = {
  dispatch: 'Dispatch now',
  retry: 'Retry',
  redispatch: 'Re-dispatch',
  check: 'Check status now',
  resolve: 'Mark resolved',
};

const ACTION_HELP: Record<Exclude<Action, 'fix'>, string> = {
  dispatch: 'Sends this order to the courier now, whatever the dispatch rules say.',
  retry: 'Sends the order again. If the courier already holds it, nothing is booked twice.',
  redispatch: 'Books a new courier delivery, for example after the courier failed or cancelled.',
  check: 'Asks the courier for this delivery’s status now, without waiting for its next webhook.',
  resolve: 'Clears the flag: you cancelled the extra courier orders, or gave the courier the new address.',
};

export function DeliveryPage(props: { id: string }) {
  const r = useResource<{ delivery: DeliveryDetail }>(`/api/deliveries/${props.id}`);
  const d = r.data?.delivery ?? null;
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [quote, setQuote] = useState<string | null>(null);

  // While the dispatch job runs, follow it.
  const pending = d?.status === 'PENDING';
  useEffect(() => {
    if (!pending) return;
    let stopped = false;
    let tries = 0;
    const tick = async () => {
      if (stopped) return;
      tries++;
      const v = await r.reload();
      if (!stopped && v?.delivery.status === 'PENDING' && tries < 120) timer = window.setTimeout(tick, 1000);
    };
    let timer = window.setTimeout(tick, 700);
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [pending]);

  async function act(action: Exclude<Action, 'fix'>) {
    setBusy(action);
    setActionError(null);
    try {
      const res = await post<ActionResult>(`/api/deliveries/${props.id}/${action}`);
      r.set({ delivery: res.delivery });
      toast(res.message);
    } catch (e) {
      setActionError((e as Error).message);
      toast((e as Error).message, true);
    } finally {
      setBusy(null);
    }
  }

  async function getQuote() {
    setBusy('quote');
    try {
      const q = await post<{ price: string; currency: string | null; environment: string; aboveMax: boolean; maxDeliveryPrice: string | null }>(`/api/deliveries/${props.id}/quote`);
      setQuote(`${money(q.price, q.currency)} from the ${q.environment} courier${q.aboveMax ? ` — above your maximum of ${q.maxDeliveryPrice}` : ''}`);
    } catch (e) {
      setQuote(null);
      toast((e as Error).message, true);
      setActionError((e as Error).message);
    } finally {
      setBusy(null);
    }
  }

  if (!d) {
    return (
      <s-page heading="Delivery">
        <s-link slot="breadcrumb-actions" href="/deliveries" onClick={linkTo('/deliveries')}>
          Deliveries
        </s-link>
        <ErrorBanner error={r.error} heading="Could not load this delivery" />
        {!r.error && <Loading label="Loading the delivery…" />}
      </s-page>
    );
  }

  const simple = d.actions.filter((a): a is Exclude<Action, 'fix'> => a !== 'fix');
  return (
    <s-page heading={`Delivery for ${d.orderName || `order ${d.shopifyOrderId}`}`}>
      <s-link slot="breadcrumb-actions" href="/deliveries" onClick={linkTo('/deliveries')}>
        Deliveries
      </s-link>
      <s-button slot="secondary-actions" onClick={() => void r.reload()}>
        Refresh
      </s-button>
      {pending && (
        <s-banner tone="info" heading="Sending to the courier">
          <Loading label="The order is queued; this page updates when the courier answers." />
        </s-banner>
      )}
      {d.attention && d.actions.length > 0 && (
        <s-banner tone={d.status === 'FAILED' ? 'critical' : 'warning'} heading={d.attention.title}>
          <s-stack gap="small-200">
            {d.attention.detail && <s-text>{d.attention.detail}</s-text>}
            {d.attention.hint && <s-text color="subdued">{d.attention.hint}</s-text>}
          </s-stack>
        </s-banner>
      )}
      {d.attention && d.actions.length === 0 && d.status !== 'PENDING' && (
        <s-banner tone={d.status === 'CANCEL_REQUESTED_IN_SHOPIFY' ? 'critical' : 'info'} heading={d.attention.title}>
          {d.attention.detail}
        </s-banner>
      )}
      <ErrorBanner error={actionError} heading="The action did not go through" />

      <s-section heading="Status">
        <s-stack gap="base">
          <s-stack direction="inline" gap="small-200" alignItems="center">
            <StatusBadge status={d.status} label={d.statusLabel} />
            {d.courierStatus && <s-badge tone="info">Courier: {humanize(d.courierStatus)}</s-badge>}
            {d.environment && <s-badge>{d.environment === 'live' ? 'Live' : 'Test'}</s-badge>}
          </s-stack>
          {(simple.length > 0 || d.actions.includes('fix')) && (
            <s-stack direction="inline" gap="base">
              {simple.map((a) => (
                <s-button key={a} variant={a === simple[0] ? 'primary' : 'secondary'} loading={busy === a} disabled={busy !== null && busy !== a} onClick={() => act(a)}>
                  {ACTION_LABELS[a]}
                </s-button>
              ))}
              <s-button loading={busy === 'quote'} disabled={busy !== null && busy !== 'quote'} onClick={getQuote}>
                Get a quote
              </s-button>
            </s-stack>
          )}
          {simple.length > 0 && (
            <s-unordered-list>
              {simple.map((a) => (
                <s-list-item key={a}>
                  <s-text type="strong">{ACTION_LABELS[a]}:</s-text> {ACTION_HELP[a]}
                </s-list-item>
              ))}
            </s-unordered-list>
          )}
          {quote && <s-text>Quote: {quote}</s-text>}
        </s-stack>
      </s-section>

      {d.geocodeCandidate && d.actions.includes('fix') && <CandidateCard delivery={d} onFixed={(v) => r.set({ delivery: v })} />}
      {d.actions.includes('fix') && !d.redacted && <FixForm delivery={d} onFixed={(v) => r.set({ delivery: v })} />}

      <s-section heading="Courier booking">
        <s-grid gridTemplateColumns="repeat(auto-fit, minmax(180px, 1fr))" gap="base">
          <Field label="Price">{money(d.price, d.currency)}</Field>
          <Field label="Job id">{d.dispatchJobId ?? '—'}</Field>
          <Field label="Courier order id">{d.courierOrderId ?? '—'}</Field>
          <Field label="Courier delivery id">{d.courierDeliveryId ?? '—'}</Field>
          <Field label="Tracking">
            {d.trackingUrl ? (
              <s-link href={d.trackingUrl} target="_blank">
                Track delivery
              </s-link>
            ) : (
              '—'
            )}
          </Field>
          <Field label="Booked">{when(d.dispatchedAt)}</Field>
          <Field label="Attempts">{`${d.tries} (booking ${d.generation})`}</Field>
          <Field label="Shopify order id">{d.shopifyOrderId}</Field>
        </s-grid>
        {d.lastError && (
          <s-box paddingBlockStart="base">
            <s-text tone="critical">Last error: {d.lastError}</s-text>
          </s-box>
        )}
      </s-section>

      {d.dropoff && (
        <s-section heading="Drop-off">
          <s-grid gridTemplateColumns="repeat(auto-fit, minmax(180px, 1fr))" gap="base">
            <Field label="Recipient">{d.dropoff.name ?? '—'}</Field>
            <Field label="Address">{[d.dropoff.address1, d.dropoff.address2, d.dropoff.city, d.dropoff.zip, d.dropoff.countryCode].filter(Boolean).join(', ') || '—'}</Field>
            <Field label="Phone">{d.dropoff.phone ? `${d.dropoff.phone}${d.overrides?.phone ? ' (corrected)' : ''}` : '—'}</Field>
            <Field label="Map location">
              {d.overrides?.latitude !== undefined
                ? `${d.overrides.latitude}, ${d.overrides.longitude} (corrected)`
                : d.dropoff.latitude !== null && d.dropoff.longitude !== null
                  ? `${d.dropoff.latitude}, ${d.dropoff.longitude}`
                  : '—'}
            </Field>
          </s-grid>
        </s-section>
      )}
      {d.redacted && (
        <s-section heading="Drop-off">
          <s-paragraph>The customer’s personal data was erased at their request.</s-paragraph>
        </s-section>
      )}

      <s-section heading="Timeline (newest first)">
        {d.timeline.length === 0 ? (
          <s-paragraph>No events yet.</s-paragraph>
        ) : (
          <s-unordered-list>
            {[...d.timeline].reverse().map((e) => (
              <s-list-item key={e.id}>
                <s-stack gap="small-400">
                  <s-stack direction="inline" gap="small-200" alignItems="center">
                    <s-text type="strong">{humanize(e.kind)}</s-text>
                    {e.status && <s-badge>{humanize(e.status)}</s-badge>}
                    {!e.applied && <s-badge tone="neutral">Not applied</s-badge>}
                    <s-text color="subdued">
                      {when(e.occurredAt)} · {e.source}
                    </s-text>
                  </s-stack>
                  {e.message && <s-text>{e.message}</s-text>}
                </s-stack>
              </s-list-item>
            ))}
          </s-unordered-list>
        )}
      </s-section>

      <s-section heading="Courier request and response">
        <s-stack gap="base">
          {d.requestId && <s-text color="subdued">Request id {d.requestId}</s-text>}
          <s-heading>Request</s-heading>
          {d.requestText ? <pre class="code">{prettyJson(d.requestText)}</pre> : <s-paragraph>Nothing was sent to the courier for this booking yet.</s-paragraph>}
          <s-heading>Response</s-heading>
          {d.responseText ? <pre class="code">{prettyJson(d.responseText)}</pre> : <s-paragraph>No answer stored.</s-paragraph>}
        </s-stack>
      </s-section>
    </s-page>
  );
}

const pct = (n: number) => `${Math.round(n * 100)}%`;

/** The geocoder's place for an address it was not sure of: one click fixes the delivery with its coordinates. */
function CandidateCard(props: { delivery: DeliveryDetail; onFixed: (d: DeliveryDetail) => void }) {
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

function FixForm(props: { delivery: DeliveryDetail; onFixed: (d: DeliveryDetail) => void }) {
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
