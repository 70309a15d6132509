// Local stand-in for https://cdn.shopify.com/shopifycloud/app-bridge.js in
// browser tests (Shopify's CDN is not reachable). It provides what the admin
// pages use: shopify.idToken() (a real session token, signed by the test with
// the app's API secret and handed over through a Playwright binding),
// shopify.toast.show(), shopify.config, the s-app-nav behaviour of routing
// through a `shopify:navigate` event, and the contextual save bar: <ui-save-bar>
// with shopify.saveBar.show/hide/toggle/leaveConfirmation, its discard
// confirmation and the leave-page confirmation (a modal <dialog> here; the
// admin's own dialog in Shopify).
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
    saveBar: {
      show: async (id) => document.getElementById(id)?.show(),
      hide: async (id) => document.getElementById(id)?.hide(),
      toggle: async (id) => document.getElementById(id)?.toggle(),
      // Resolves when no save bar shows, or once the merchant chose to leave; never while they stay.
      leaveConfirmation() {
        const open = [...document.querySelectorAll('ui-save-bar')].filter((b) => b.showing);
        if (!open.length) return Promise.resolve();
        return new Promise((resolve) => {
          confirmDialog('Leave page with unsaved changes?', 'Leaving this page will delete all unsaved changes.', 'Leave page', 'Stay').then((leave) => {
            if (!leave) return;
            for (const b of open) b.hide();
            resolve();
          });
        });
      },
    },
  };
  window.__standInToasts = toasts;
  /** Every confirmation asked, as [title, answer]: tests read what the merchant was asked. */
  const dialogs = [];
  window.__standInDialogs = dialogs;

  function confirmDialog(title, body, yes, no) {
    return new Promise((resolve) => {
      const d = document.createElement('dialog');
      d.setAttribute('aria-labelledby', 'stand-in-dialog-title');
      d.style.cssText = 'border:none;border-radius:12px;padding:20px;max-width:420px;font:14px/1.45 system-ui,sans-serif;box-shadow:0 8px 24px rgba(0,0,0,.25)';
      d.innerHTML = `<h2 id="stand-in-dialog-title" style="font-size:16px;margin:0 0 8px"></h2><p style="margin:0 0 16px"></p>
        <div style="display:flex;gap:8px;justify-content:flex-end"><button type="button" data-answer="no"></button><button type="button" data-answer="yes" style="background:#c70a24;color:#fff;border:none;border-radius:8px;padding:6px 12px"></button></div>`;
      d.querySelector('h2').textContent = title;
      d.querySelector('p').textContent = body;
      d.querySelector('[data-answer=yes]').textContent = yes;
      d.querySelector('[data-answer=no]').textContent = no;
      const answer = (yesNo) => {
        dialogs.push([title, yesNo]);
        d.close();
        d.remove();
        resolve(yesNo);
      };
      d.querySelector('[data-answer=yes]').addEventListener('click', () => answer(true));
      d.querySelector('[data-answer=no]').addEventListener('click', () => answer(false));
      d.addEventListener('cancel', (e) => {
        e.preventDefault();
        answer(false);
      });
      document.body.appendChild(d);
      d.showModal();
    });
  }

  // <ui-save-bar>: in Shopify it shows in the admin's top bar; its <button variant="primary"> is Save,
  // the other <button> Discard. Here a bar fixed at the bottom of the page (it moves nothing, covers no navigation).
  class UiSaveBar extends HTMLElement {
    constructor() {
      super();
      this._showing = false;
      this._confirmed = false;
      this.attachShadow({ mode: 'open' });
      this.addEventListener(
        'click',
        (e) => {
          const button = e.composedPath().find((n) => n instanceof HTMLButtonElement && n.parentElement === this);
          if (!button || button.getAttribute('variant') === 'primary' || this._confirmed || !this.hasAttribute('discardconfirmation')) return;
          e.preventDefault();
          e.stopImmediatePropagation();
          confirmDialog('Discard all unsaved changes?', 'If you discard changes, you will delete any edits you made since you last saved.', 'Discard changes', 'Continue editing').then((yes) => {
            if (!yes) return;
            this._confirmed = true;
            button.click();
            this._confirmed = false;
          });
        },
        true,
      );
    }
    get showing() {
      return this._showing;
    }
    get discardConfirmation() {
      return this.hasAttribute('discardconfirmation');
    }
    set discardConfirmation(v) {
      this.toggleAttribute('discardconfirmation', !!v);
    }
    connectedCallback() {
      this.render();
    }
    disconnectedCallback() {
      this._showing = false;
    }
    async show() {
      this._showing = true;
      this.render();
    }
    async hide() {
      this._showing = false;
      this.render();
    }
    async toggle() {
      this._showing = !this._showing;
      this.render();
    }
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: contents; } .bar { position: fixed; bottom: 0; left: 0; right: 0; z-index: 900; display: ${this._showing ? 'flex' : 'none'};
          align-items: center; gap: 8px; padding: 8px 24px; background: #1a1a1a; color: #fff; font: 14px/1.4 system-ui, sans-serif; }
          .msg { flex: 1; font-weight: 600; } ::slotted(button) { font: inherit; border-radius: 8px; padding: 6px 12px; border: 1px solid #8a8a8a; background: #303030; color: #fff; cursor: pointer; }
          ::slotted(button[variant="primary"]) { background: #fff; color: #1a1a1a; border-color: #fff; order: 2; }</style>
        <div class="bar" role="region" aria-label="Unsaved changes"><span class="msg">Unsaved changes</span><slot></slot></div>`;
    }
  }
  if (!customElements.get('ui-save-bar')) customElements.define('ui-save-bar', UiSaveBar);

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
