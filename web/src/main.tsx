import { render } from 'preact';
import { App } from './app.tsx';
import { interceptLinks } from './router.ts';
import './styles.css';

interceptLinks();
render(<App />, document.getElementById('app')!);
