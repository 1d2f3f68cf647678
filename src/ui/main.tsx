import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { useLab } from './store';
import './styles.css';

// A small read-only bridge for end-to-end tests (docs/architecture.md).
(window as unknown as { __lab: unknown }).__lab = { state: () => useLab.getState() };

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
