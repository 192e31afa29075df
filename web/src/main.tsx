import { render } from 'preact';
import { App } from './app.tsx';
import { interceptLinks } from './router.ts';
import { refetchOnFocus } from './library-events.ts';
import './styles.css';

interceptLinks();
refetchOnFocus();
render(<App />, document.getElementById('app')!);
