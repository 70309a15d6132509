// Local stand-in for https://cdn.shopify.com/shopifycloud/app-bridge.js in
// browser tests (Shopify's CDN is not reachable). It provides what the admin
// pages use: shopify.idToken() (a real session token, signed by the test with
// the app's API secret and handed over through a Playwright binding),
// shopify.toast.show(), shopify.config, and the s-app-nav behaviour of routing
// through a `shopify:navigate` event.
(() => {
  const meta = document.querySelector('meta[name="shopify-api-key"]');
  const params = new URLSearchParams(location.search);
  const toasts = [];
  let container = null;

  function toastContainer() {
    if (container && container.isConnected) return container;
    container = document.createElement('div');
    container.id = 'stand-in-toasts';
    container.setAttribute('role', 'status');
    container.setAttribute('aria-live', 'polite');
    container.style.cssText = 'position:fixed;left:50%;bottom:16px;transform:translateX(-50%);display:flex;flex-direction:column;gap:8px;z-index:1000;font:14px/1.4 system-ui,sans-serif';
    document.body.appendChild(container);
    return container;
  }

  window.shopify = {
    config: { apiKey: meta ? meta.getAttribute('content') : null, shop: params.get('shop'), host: params.get('host') },
    origin: location.origin,
    ready: Promise.resolve(),
    environment: { embedded: true, mobile: false, pos: false },
    async idToken() {
      if (typeof window.__standInSessionToken !== 'function') throw new Error('stand-in App Bridge: no session token binding');
      return window.__standInSessionToken();
    },
    toast: {
      show(message, opts = {}) {
        const id = `toast-${toasts.length + 1}`;
        toasts.push({ id, message, isError: !!opts.isError });
        const el = document.createElement('div');
        el.className = 'stand-in-toast';
        el.dataset.error = String(!!opts.isError);
        el.textContent = message;
        el.style.cssText = `padding:10px 16px;border-radius:10px;color:#fff;background:${opts.isError ? '#8e1f0b' : '#303030'};box-shadow:0 4px 12px rgba(0,0,0,.2)`;
        toastContainer().appendChild(el);
        setTimeout(() => el.remove(), opts.duration ?? 5000);
        return id;
      },
      hide() {},
    },
    loading() {},
    setSignals() {},
  };
  window.__standInToasts = toasts;

  // App Bridge routes clicks on s-app-nav links to the app (client-side routing).
  document.addEventListener(
    'click',
    (event) => {
      const link = event.composedPath().find((n) => n instanceof Element && n.localName === 's-link');
      if (!link || !link.closest('s-app-nav')) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      link.dispatchEvent(new CustomEvent('shopify:navigate', { bubbles: true, composed: true }));
    },
    true,
  );
})();
