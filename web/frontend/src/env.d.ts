// App Bridge's own elements, for Preact's JSX (its types declare them for React),
// and Vite's import.meta.glob.
/// <reference types="vite/client" />
import 'preact';

declare module 'preact' {
  namespace createElement.JSX {
    interface IntrinsicElements {
      's-app-nav': { children?: preact.ComponentChildren };
      /** App Bridge's contextual save bar: a primary <button> saves, the other discards (shopify.saveBar shows it). */
      'ui-save-bar': { id: string; discardConfirmation?: boolean; children?: preact.ComponentChildren };
    }
    interface ButtonHTMLAttributes {
      /** Read by App Bridge inside ui-save-bar. */
      variant?: 'primary';
      loading?: '' | undefined;
    }
  }
}
