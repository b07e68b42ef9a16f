import { render } from 'preact';
import { App } from './app.view.js';
import './styles.css';

render(<App />, document.getElementById('app') as HTMLElement);
