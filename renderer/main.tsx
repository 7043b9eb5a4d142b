/**
 * Renderer entry: picks the host transport (Electron preload bridge or browser-mode WebSocket),
 * builds the app runtime and renders the app.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectHost } from './host/connect.js';
import { AppRuntime } from './state/app-runtime.js';
import { animationFrameScheduler } from './state/browser-scheduler.js';
import { App } from './views/App.js';
import { RuntimeContext } from './views/context.js';
import './styles/base.css';
import './styles/layout.css';
import './styles/timeline.css';
import './styles/panels.css';
import './styles/branches.css';
import './styles/import.css';
import './styles/markdown.css';
import './styles/debugger.css';
import './styles/team.css';
import './styles/keyboard.css';
import './styles/responsive.css';

// The theme follows the system (prefers-color-scheme, also when it changes) until the person picks
// one with the theme toggle; that choice is saved in the settings (`theme`, so every window and
// browser gets it) and cached in this browser so the first paint already has it.
const THEME_KEY = 'forkline.theme';
const systemLight = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: light)') : undefined;
const chosenTheme = (() => {
  try {
    const saved = localStorage.getItem(THEME_KEY);
    return saved === 'light' || saved === 'dark' ? saved : undefined;
  } catch {
    return undefined;
  }
})();
let followSystem = chosenTheme === undefined;
/** True while the theme changes because the system's or the settings' did (not a new choice to save). */
let followingSystemChange = false;
/** Sets the theme without saving it as the person's choice. */
const setThemeQuietly = (theme: 'light' | 'dark'): void => {
  followingSystemChange = true;
  try {
    runtime.app.getState().setTheme(theme);
  } finally {
    followingSystemChange = false;
  }
};
const savedTheme = chosenTheme ?? (systemLight?.matches ? 'light' : 'dark');
document.documentElement.dataset['theme'] = savedTheme;

const LOG_EVENTS_KEY = 'forkline.showLogEvents';
const savedShowLogEvents = (() => {
  try {
    return localStorage.getItem(LOG_EVENTS_KEY) === 'true';
  } catch {
    return false;
  }
})();

const SIDEBAR_KEY = 'forkline.sidebarCollapsed';
const savedSidebarCollapsed = (() => {
  try {
    return localStorage.getItem(SIDEBAR_KEY) === 'true';
  } catch {
    return false;
  }
})();

const connection = connectHost();
const runtime = new AppRuntime({
  client: connection.client,
  connection,
  schedule: animationFrameScheduler,
  initialTheme: savedTheme,
  initialShowLogEvents: savedShowLogEvents,
  initialSidebarCollapsed: savedSidebarCollapsed,
});
runtime.app.subscribe((state, previous) => {
  if (state.settings !== previous.settings && state.settings) {
    const setting = state.settings.theme;
    if (setting === 'light' || setting === 'dark') {
      followSystem = false;
      if (state.theme !== setting) setThemeQuietly(setting);
      try {
        localStorage.setItem(THEME_KEY, setting);
      } catch {
        /* storage unavailable */
      }
    } else if (setting === undefined && !followSystem) {
      // A pick from before the theme was a setting (this browser only): it becomes the setting.
      void connection.client.updateSettings({ theme: state.theme }).then(
        (view) => runtime.app.getState().setSettings(view),
        () => undefined,
      );
    } else if (setting === 'system') {
      followSystem = true;
      try {
        localStorage.removeItem(THEME_KEY);
      } catch {
        /* storage unavailable */
      }
      const system = systemLight?.matches ? 'light' : 'dark';
      if (state.theme !== system) setThemeQuietly(system);
    }
  }
  try {
    if (state.theme !== previous.theme) {
      document.documentElement.dataset['theme'] = state.theme;
      if (!followingSystemChange) {
        followSystem = false;
        localStorage.setItem(THEME_KEY, state.theme);
        const theme = state.theme;
        void connection.client.updateSettings({ theme }).then(
          (view) => runtime.app.getState().setSettings(view),
          (error: unknown) => console.error('the theme was not saved in the settings:', error),
        );
      }
    }
    if (state.showLogEvents !== previous.showLogEvents) localStorage.setItem(LOG_EVENTS_KEY, String(state.showLogEvents));
    if (state.sidebarCollapsed !== previous.sidebarCollapsed) localStorage.setItem(SIDEBAR_KEY, String(state.sidebarCollapsed));
  } catch {
    /* storage unavailable */
  }
});
systemLight?.addEventListener('change', (e) => {
  if (!followSystem) return;
  setThemeQuietly(e.matches ? 'light' : 'dark');
});
runtime.start();
window.addEventListener('beforeunload', () => {
  runtime.dispose();
  connection.dispose();
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <RuntimeContext.Provider value={runtime}>
      <App />
    </RuntimeContext.Provider>
  </StrictMode>,
);
