import { render } from 'preact';
import { App } from './app.tsx';
import { interceptLinks } from './router.ts';
import { refetchOnFocus } from './library-events.ts';
import './styles.css';

interceptLinks();
refetchOnFocus();
// The service worker (web/public/sw.js) caches the app's own files only; never account data.
if ('serviceWorker' in navigator && window.isSecureContext) {
  window.addEventListener('load', () => void navigator.serviceWorker.register('/sw.js').catch(() => undefined));
}
render(<App />, document.getElementById('app')!);
