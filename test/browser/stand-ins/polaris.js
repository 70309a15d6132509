// Local stand-in for https://cdn.shopify.com/shopifycloud/polaris.js in browser
// tests. Minimal Polaris web components with the same names, properties and
// events the admin pages use (value/checked + input/change events on fields,
// click on buttons, heading/tone/loading/disabled/error/details/label), each
// rendered into an open shadow root with real form controls, so tests drive
// the pages the way a merchant does (labels, roles, typing, clicking).
// Looks are approximate; behaviour is what matters.
(() => {
  const GAP = { none: '0', 'small-500': '2px', 'small-400': '4px', 'small-300': '6px', 'small-200': '8px', 'small-100': '10px', small: '10px', base: '14px', 'large-100': '18px', large: '20px', 'large-200': '24px' };
  const space = (v, fallback = '0') => (v === undefined || v === null || v === '' ? fallback : (GAP[v] ?? v));
  const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const TONES = {
    success: ['#cdfee1', '#0c5132'],
    critical: ['#fedad9', '#8e1f0b'],
    warning: ['#ffef9d', '#4f4700'],
    caution: ['#ffef9d', '#4f4700'],
    info: ['#e0f0ff', '#00527c'],
    neutral: ['#e3e3e3', '#303030'],
    auto: ['#e3e3e3', '#303030'],
  };
  let uid = 0;

  const base = document.createElement('style');
  base.textContent = `
    body { margin: 0; background: #f1f1f1; color: #303030; font: 14px/1.45 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, sans-serif; }
    s-option { display: none; }
  `;
  document.head.appendChild(base);

  /** Base: declared properties (reflected from attributes too) re-render the shadow root. */
  class StandIn extends HTMLElement {
    static props = [];
    static get observedAttributes() {
      return (this.props ?? []).map((p) => p.toLowerCase());
    }
    constructor() {
      super();
      this._p = {};
      this.attachShadow({ mode: 'open' });
      this._queued = false;
    }
    connectedCallback() {
      this.render();
    }
    attributeChangedCallback(name, _old, value) {
      const prop = this.constructor.props.find((p) => p.toLowerCase() === name);
      if (prop && this._p[prop] !== value) {
        this._p[prop] = value === '' ? true : value;
        this.queue();
      }
    }
    queue() {
      if (this._queued) return;
      this._queued = true;
      queueMicrotask(() => {
        this._queued = false;
        if (this.isConnected) this.render();
      });
    }
    flag(name) {
      const v = this._p[name];
      return v === true || v === '' || v === 'true' || v === name;
    }
    render() {}
  }
  function defineProps(cls) {
    for (const prop of cls.props ?? []) {
      let own = false;
      for (let p = cls.prototype; p && p !== StandIn.prototype && p !== HTMLElement.prototype; p = Object.getPrototypeOf(p)) {
        if (Object.getOwnPropertyDescriptor(p, prop)) own = true;
      }
      if (own) continue;
      Object.defineProperty(cls.prototype, prop, {
        configurable: true,
        get() {
          return this._p[prop];
        },
        set(v) {
          if (this._p[prop] === v) return;
          this._p[prop] = v;
          this.queue();
        },
      });
    }
  }
  function define(tag, cls) {
    defineProps(cls);
    if (!customElements.get(tag)) customElements.define(tag, cls);
  }

  // --- layout and text --------------------------------------------------------------------------------

  define('s-page', class extends StandIn {
    static props = ['heading', 'inlineSize'];
    render() {
      const max = this._p.inlineSize === 'large' ? '1200px' : this._p.inlineSize === 'small' ? '640px' : '1000px';
      this.shadowRoot.innerHTML = `
        <style>
          :host { display: block; }
          .page { max-width: ${max}; margin: 0 auto; padding: 20px 24px 48px; display: flex; flex-direction: column; gap: 16px; }
          header { display: flex; align-items: center; gap: 12px; }
          h1 { font-size: 20px; margin: 0; flex: 1; }
          .actions { display: flex; gap: 8px; }
          main { display: flex; flex-direction: column; gap: 16px; }
        </style>
        <div class="page">
          <header><slot name="breadcrumb-actions"></slot><h1>${esc(this._p.heading)}</h1><div class="actions"><slot name="secondary-actions"></slot><slot name="primary-action"></slot></div></header>
          <main><slot></slot></main>
        </div>`;
    }
  });

  define('s-section', class extends StandIn {
    static props = ['heading', 'padding', 'accessibilityLabel'];
    render() {
      const pad = this._p.padding === 'none' ? '0' : '16px';
      const label = this._p.accessibilityLabel || this._p.heading || '';
      this.shadowRoot.innerHTML = `
        <style>:host { display: block; } section { background: #fff; border-radius: 12px; box-shadow: 0 1px 0 rgba(0,0,0,.07), 0 0 0 1px rgba(0,0,0,.05); padding: ${pad}; }
        h2 { font-size: 15px; margin: 0 0 12px; }</style>
        <section aria-label="${esc(label)}">${this._p.heading ? `<h2>${esc(this._p.heading)}</h2>` : ''}<slot></slot></section>`;
    }
  });

  define('s-stack', class extends StandIn {
    static props = ['direction', 'gap', 'alignItems', 'justifyContent', 'padding'];
    render() {
      const inline = this._p.direction === 'inline';
      this.shadowRoot.innerHTML = `<style>:host { display: flex; flex-direction: ${inline ? 'row' : 'column'}; flex-wrap: ${inline ? 'wrap' : 'nowrap'};
        gap: ${space(this._p.gap, inline ? '0' : '0')}; align-items: ${this._p.alignItems ?? (inline ? 'center' : 'stretch')}; justify-content: ${this._p.justifyContent ?? 'flex-start'}; padding: ${space(this._p.padding)}; }</style><slot></slot>`;
    }
  });

  define('s-grid', class extends StandIn {
    static props = ['gridTemplateColumns', 'gap', 'alignItems'];
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: grid; grid-template-columns: ${this._p.gridTemplateColumns ?? '1fr'}; gap: ${space(this._p.gap)}; align-items: ${this._p.alignItems ?? 'stretch'}; }</style><slot></slot>`;
    }
  });

  define('s-box', class extends StandIn {
    static props = ['padding', 'paddingBlockStart', 'inlineSize', 'maxInlineSize'];
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: block; padding: ${space(this._p.padding)}; padding-top: ${space(this._p.paddingBlockStart ?? this._p.padding)};
        inline-size: ${this._p.inlineSize ?? 'auto'}; max-inline-size: ${this._p.maxInlineSize ?? 'none'}; }</style><slot></slot>`;
    }
  });

  define('s-text', class extends StandIn {
    static props = ['color', 'tone', 'type'];
    render() {
      const color = this._p.tone === 'critical' ? '#8e1f0b' : this._p.color === 'subdued' ? '#616161' : 'inherit';
      this.shadowRoot.innerHTML = `<style>:host { display: inline; color: ${color}; font-weight: ${this._p.type === 'strong' ? 600 : 'inherit'}; }</style><slot></slot>`;
    }
  });

  define('s-paragraph', class extends StandIn {
    static props = ['color'];
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: block; } p { margin: 0; color: ${this._p.color === 'subdued' ? '#616161' : 'inherit'}; }</style><p><slot></slot></p>`;
    }
  });

  define('s-heading', class extends StandIn {
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: block; } h3 { font-size: 14px; margin: 4px 0 0; }</style><h3><slot></slot></h3>`;
    }
  });

  define('s-badge', class extends StandIn {
    static props = ['tone', 'size', 'icon', 'color'];
    render() {
      const [bg, fg] = TONES[this._p.tone] ?? TONES.neutral;
      this.shadowRoot.innerHTML = `<style>:host { display: inline-flex; } span { background: ${bg}; color: ${fg}; border-radius: 8px; padding: 1px 8px; font-size: 12px; font-weight: 550; white-space: nowrap; }</style><span part="badge" data-tone="${esc(this._p.tone ?? 'neutral')}"><slot></slot></span>`;
    }
  });

  define('s-banner', class extends StandIn {
    static props = ['tone', 'heading', 'dismissible'];
    render() {
      const [bg, fg] = TONES[this._p.tone] ?? TONES.info;
      const role = this._p.tone === 'critical' ? 'alert' : 'status';
      this.shadowRoot.innerHTML = `<style>:host { display: block; } div { background: ${bg}; color: ${fg}; border-radius: 12px; padding: 12px 16px; } strong { display: block; margin-bottom: 4px; }</style>
        <div role="${role}" data-tone="${esc(this._p.tone ?? 'info')}">${this._p.heading ? `<strong>${esc(this._p.heading)}</strong>` : ''}<slot></slot></div>`;
    }
  });

  define('s-empty-state', class extends StandIn {
    static props = ['heading'];
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: block; } div { padding: 40px 24px; text-align: center; display: flex; flex-direction: column; gap: 12px; align-items: center; } h2 { font-size: 16px; margin: 0; } .body { max-width: 560px; color: #616161; }</style>
        <div><h2>${esc(this._p.heading)}</h2><div class="body"><slot></slot></div><slot name="primary-action"></slot></div>`;
    }
  });

  define('s-spinner', class extends StandIn {
    static props = ['accessibilityLabel', 'size'];
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: inline-block; } span { display: inline-block; width: 16px; height: 16px; border: 2px solid #c9c9c9; border-top-color: #303030; border-radius: 50%; animation: r .8s linear infinite; } @keyframes r { to { transform: rotate(360deg); } }</style>
        <span role="progressbar" aria-label="${esc(this._p.accessibilityLabel ?? 'Loading')}"></span>`;
    }
  });

  define('s-progress', class extends StandIn {
    static props = ['value', 'max', 'tone', 'accessibilityLabel'];
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: block; } progress { width: 100%; height: 8px; accent-color: #303030; }</style>
        <progress value="${Number(this._p.value ?? 0)}" max="${Number(this._p.max ?? 100)}" aria-label="${esc(this._p.accessibilityLabel ?? '')}"></progress>`;
    }
  });

  define('s-divider', class extends StandIn {
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: block; border-top: 1px solid #e3e3e3; }</style>`;
    }
  });

  define('s-ordered-list', class extends StandIn {
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: block; } ol { margin: 0; padding-left: 20px; display: flex; flex-direction: column; gap: 10px; }</style><ol><slot></slot></ol>`;
    }
  });
  define('s-unordered-list', class extends StandIn {
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: block; } ul { margin: 0; padding-left: 20px; display: flex; flex-direction: column; gap: 4px; }</style><ul><slot></slot></ul>`;
    }
  });
  define('s-list-item', class extends StandIn {
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: list-item; }</style><slot></slot>`;
    }
  });

  // --- actions -------------------------------------------------------------------------------------

  define('s-button', class extends StandIn {
    static props = ['variant', 'tone', 'loading', 'disabled', 'accessibilityLabel', 'type', 'href', 'commandFor', 'command', 'icon'];
    constructor() {
      super();
      // A disabled or loading button does nothing, as in Polaris.
      this.addEventListener('click', (e) => {
        if (this.flag('disabled') || this.flag('loading')) {
          e.preventDefault();
          e.stopImmediatePropagation();
        }
      }, true);
    }
    render() {
      const primary = this._p.variant === 'primary';
      const critical = this._p.tone === 'critical';
      const tertiary = this._p.variant === 'tertiary';
      const bg = tertiary ? 'transparent' : primary ? (critical ? '#c70a24' : '#303030') : '#fff';
      const fg = tertiary ? (critical ? '#8e1f0b' : '#303030') : primary ? '#fff' : '#303030';
      const busy = this.flag('loading');
      const label = this._p.accessibilityLabel ? ` aria-label="${esc(this._p.accessibilityLabel)}"` : '';
      this.shadowRoot.innerHTML = `<style>:host { display: inline-flex; } button { font: inherit; font-weight: 550; border-radius: 8px; padding: 6px 12px; cursor: pointer; background: ${bg}; color: ${fg};
          border: ${primary || tertiary ? 'none' : '1px solid #c9c9c9'}; display: inline-flex; align-items: center; gap: 6px; } button:disabled { opacity: .55; cursor: default; }
          .spin { width: 12px; height: 12px; border: 2px solid currentColor; border-right-color: transparent; border-radius: 50%; animation: r .8s linear infinite; } @keyframes r { to { transform: rotate(360deg); } }</style>
        <button type="button"${label} ${this.flag('disabled') || busy ? 'disabled' : ''} aria-busy="${busy}">${busy ? '<span class="spin" role="progressbar" aria-label="Loading"></span>' : ''}<slot></slot></button>`;
    }
  });

  define('s-link', class extends StandIn {
    static props = ['href', 'target', 'tone', 'accessibilityLabel'];
    render() {
      const target = this._p.target ? ` target="${esc(this._p.target)}"` : '';
      this.shadowRoot.innerHTML = `<style>:host { display: inline; } a { color: var(--stand-in-link-color, #005bd3); text-decoration: none; } a:hover { text-decoration: underline; }</style>
        <a href="${esc(this._p.href ?? '#')}"${target}><slot></slot></a>`;
    }
  });

  // App Bridge's nav renders in the admin sidebar; here, a bar at the top.
  define('s-app-nav', class extends StandIn {
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: block; background: #1a1a1a; padding: 10px 24px; } nav { display: flex; gap: 20px; } ::slotted(s-link) { --stand-in-link-color: #fff; }</style>
        <nav aria-label="App navigation"><slot></slot></nav>`;
    }
  });

  // --- fields --------------------------------------------------------------------------------------

  const FIELD_STYLE = `:host { display: block; } label { display: block; margin-bottom: 4px; } .hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    input, select { font: inherit; width: 100%; box-sizing: border-box; padding: 6px 10px; border: 1px solid #8a8a8a; border-radius: 8px; background: #fff; }
    input[readonly] { background: #f7f7f7; } input[aria-invalid="true"], select[aria-invalid="true"] { border-color: #8e1f0b; background: #fff4f4; }
    .details { color: #616161; font-size: 13px; margin-top: 4px; } .error { color: #8e1f0b; font-size: 13px; margin-top: 4px; }`;

  class Field extends StandIn {
    static props = ['label', 'labelAccessibilityVisibility', 'value', 'error', 'details', 'placeholder', 'name', 'readOnly', 'disabled', 'required'];
    inputType() {
      return 'text';
    }
    get value() {
      return this._p.value ?? '';
    }
    set value(v) {
      this._p.value = v ?? '';
      const input = this.shadowRoot.querySelector('input');
      if (input && input.value !== this._p.value) input.value = this._p.value;
    }
    render() {
      const id = (this._id ??= `f${++uid}`);
      const hidden = this._p.labelAccessibilityVisibility === 'exclusive';
      const err = this._p.error;
      // Only a re-render keeps focus: on the first render both sides are null (a new field must not take it).
      const previous = this.shadowRoot.querySelector('input');
      const focused = previous !== null && this.shadowRoot.activeElement === previous;
      this.shadowRoot.innerHTML = `<style>${FIELD_STYLE}</style>
        <label for="${id}" class="${hidden ? 'hidden' : ''}">${esc(this._p.label)}</label>
        <input id="${id}" type="${this.inputType()}" name="${esc(this._p.name ?? '')}" placeholder="${esc(this._p.placeholder ?? '')}" ${this.flag('readOnly') ? 'readonly' : ''} ${this.flag('disabled') ? 'disabled' : ''}
          aria-invalid="${err ? 'true' : 'false'}" ${err ? `aria-describedby="${id}-e"` : ''}>
        ${err ? `<div class="error" id="${id}-e" role="alert">${esc(err)}</div>` : ''}
        ${this._p.details ? `<div class="details">${esc(this._p.details)}</div>` : ''}`;
      const input = this.shadowRoot.querySelector('input');
      input.value = this._p.value ?? '';
      input.addEventListener('input', () => {
        this._p.value = input.value; // the composed input event reaches the host's listeners next
      });
      input.addEventListener('change', () => {
        this._p.value = input.value;
        this.dispatchEvent(new Event('change', { bubbles: true }));
      });
      // Polaris fields are form-associated: Enter submits their form (implicit submission).
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && this.closest('form')) {
          e.preventDefault();
          this.closest('form').requestSubmit();
        }
      });
      if (focused) input.focus();
    }
  }
  define('s-text-field', class extends Field {});
  define('s-password-field', class extends Field { inputType() { return 'password'; } });
  define('s-url-field', class extends Field { inputType() { return 'url'; } });
  define('s-email-field', class extends Field { inputType() { return 'email'; } });
  define('s-number-field', class extends Field { inputType() { return 'number'; } });
  define('s-search-field', class extends Field { inputType() { return 'search'; } });
  define('s-date-field', class extends Field { inputType() { return 'date'; } });

  define('s-checkbox', class extends StandIn {
    static props = ['label', 'checked', 'details', 'error', 'disabled', 'name'];
    get checked() {
      return this.flag('checked');
    }
    set checked(v) {
      this._p.checked = !!v;
      const box = this.shadowRoot.querySelector('input');
      if (box) box.checked = !!v;
    }
    render() {
      const id = (this._id ??= `c${++uid}`);
      this.shadowRoot.innerHTML = `<style>${FIELD_STYLE} .row { display: flex; gap: 8px; align-items: center; } input { width: auto; }</style>
        <div class="row"><input type="checkbox" id="${id}" ${this.flag('disabled') ? 'disabled' : ''}><label for="${id}" style="margin:0">${esc(this._p.label)}</label></div>
        ${this._p.error ? `<div class="error" role="alert">${esc(this._p.error)}</div>` : ''}${this._p.details ? `<div class="details">${esc(this._p.details)}</div>` : ''}`;
      const box = this.shadowRoot.querySelector('input');
      box.checked = this.flag('checked');
      box.addEventListener('change', () => {
        this._p.checked = box.checked;
        this.dispatchEvent(new Event('input', { bubbles: true }));
        this.dispatchEvent(new Event('change', { bubbles: true }));
      });
    }
  });
  customElements.get('s-switch') || define('s-switch', class extends customElements.get('s-checkbox') {});

  define('s-select', class extends StandIn {
    static props = ['label', 'labelAccessibilityVisibility', 'value', 'error', 'details', 'disabled', 'name'];
    constructor() {
      super();
      new MutationObserver(() => this.queue()).observe(this, { childList: true, subtree: true, characterData: true, attributes: true });
    }
    get value() {
      return this._p.value ?? '';
    }
    set value(v) {
      this._p.value = v ?? '';
      const sel = this.shadowRoot.querySelector('select');
      if (sel) sel.value = this._p.value;
    }
    render() {
      const id = (this._id ??= `s${++uid}`);
      const options = [...this.querySelectorAll('s-option')].map((o) => ({ value: o.value ?? o.getAttribute('value') ?? '', label: o.textContent.trim() }));
      const hidden = this._p.labelAccessibilityVisibility === 'exclusive';
      const err = this._p.error;
      this.shadowRoot.innerHTML = `<style>${FIELD_STYLE}</style>
        <label for="${id}" class="${hidden ? 'hidden' : ''}">${esc(this._p.label)}</label>
        <select id="${id}" aria-invalid="${err ? 'true' : 'false'}" ${this.flag('disabled') ? 'disabled' : ''}>${options.map((o) => `<option value="${esc(o.value)}">${esc(o.label)}</option>`).join('')}</select>
        ${err ? `<div class="error" role="alert">${esc(err)}</div>` : ''}${this._p.details ? `<div class="details">${esc(this._p.details)}</div>` : ''}`;
      const sel = this.shadowRoot.querySelector('select');
      sel.value = this._p.value ?? '';
      sel.addEventListener('change', () => {
        this._p.value = sel.value;
        this.dispatchEvent(new Event('input', { bubbles: true }));
        this.dispatchEvent(new Event('change', { bubbles: true }));
      });
    }
  });

  define('s-option', class extends HTMLElement {
    get value() {
      return this._value ?? this.getAttribute('value') ?? '';
    }
    set value(v) {
      this._value = v;
      this.closest('s-select')?.queue?.();
    }
  });

  // --- tables --------------------------------------------------------------------------------------

  define('s-table', class extends StandIn {
    static props = ['loading', 'variant', 'paginate', 'hasNextPage', 'hasPreviousPage'];
    render() {
      this.shadowRoot.innerHTML = `<style>:host { display: block; } .filters { padding: 12px; border-bottom: 1px solid #e3e3e3; } .filters:has(slot:not(.x)) {}
        .wrap { position: relative; } .table { display: table; width: 100%; border-collapse: collapse; } .loading { position: absolute; top: 6px; right: 12px; font-size: 12px; color: #616161; }</style>
        <div class="filters"><slot name="filters"></slot></div>
        <div class="wrap">${this.flag('loading') ? '<span class="loading" role="progressbar" aria-label="Loading">Loading…</span>' : ''}<div class="table" role="table"><slot></slot></div></div>`;
    }
  });
  define('s-table-header-row', class extends StandIn {
    render() {
      this.setAttribute('role', 'row');
      this.shadowRoot.innerHTML = `<style>:host { display: table-row; background: #f7f7f7; font-weight: 550; font-size: 13px; }</style><slot></slot>`;
    }
  });
  define('s-table-header', class extends StandIn {
    static props = ['listSlot', 'format'];
    render() {
      this.setAttribute('role', 'columnheader');
      this.shadowRoot.innerHTML = `<style>:host { display: table-cell; padding: 8px 12px; text-align: left; border-bottom: 1px solid #e3e3e3; }</style><slot></slot>`;
    }
  });
  define('s-table-body', class extends StandIn {
    render() {
      this.setAttribute('role', 'rowgroup');
      this.shadowRoot.innerHTML = `<style>:host { display: table-row-group; }</style><slot></slot>`;
    }
  });
  define('s-table-row', class extends StandIn {
    render() {
      this.setAttribute('role', 'row');
      this.shadowRoot.innerHTML = `<style>:host { display: table-row; }</style><slot></slot>`;
    }
  });
  define('s-table-cell', class extends StandIn {
    render() {
      this.setAttribute('role', 'cell');
      this.shadowRoot.innerHTML = `<style>:host { display: table-cell; padding: 10px 12px; vertical-align: top; border-bottom: 1px solid #ebebeb; }</style><slot></slot>`;
    }
  });
})();
