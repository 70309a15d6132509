// App Bridge's own elements, for Preact's JSX (its types declare them for React).
import 'preact';

declare module 'preact' {
  namespace createElement.JSX {
    interface IntrinsicElements {
      's-app-nav': { children?: preact.ComponentChildren };
    }
  }
}
