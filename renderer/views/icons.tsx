/** Small inline SVG icons (no icon font, no remote assets; CSP-safe). */
import type { ReactNode } from 'react';

/** Decorative: the button around the icon carries the label (`title` / `aria-label`). */
function Svg({ children }: { readonly children: ReactNode; readonly title: string }): ReactNode {
  return (
    <svg className="icon" width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      {children}
    </svg>
  );
}

export const RenameIcon = (): ReactNode => (
  <Svg title="Rename">
    <path d="M11 2.5l2.5 2.5L6 12.5H3.5V10z" />
  </Svg>
);

export const ForkIcon = (): ReactNode => (
  <Svg title="Fork">
    <circle cx="4.5" cy="3.5" r="1.5" />
    <circle cx="11.5" cy="3.5" r="1.5" />
    <circle cx="4.5" cy="12.5" r="1.5" />
    <path d="M4.5 5v6M11.5 5c0 3-7 2.5-7 6" />
  </Svg>
);

export const ExportIcon = (): ReactNode => (
  <Svg title="Export">
    <path d="M8 2.5v8M4.5 7L8 10.5 11.5 7M3 13.5h10" />
  </Svg>
);

/** A box (a bundle of sessions). */
export const BundleIcon = (): ReactNode => (
  <Svg title="Export bundle">
    <path d="M2.5 5L8 2.5 13.5 5v6L8 13.5 2.5 11zM2.5 5L8 7.5 13.5 5M8 7.5v6" />
  </Svg>
);

export const DeleteIcon = (): ReactNode => (
  <Svg title="Delete">
    <path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.7 9h5.6l.7-9" />
  </Svg>
);

export const ThemeIcon = (): ReactNode => (
  <Svg title="Theme">
    <path d="M13 9.5A5.5 5.5 0 016.5 3a5.5 5.5 0 106.5 6.5z" />
  </Svg>
);

export const GearIcon = (): ReactNode => (
  <Svg title="Settings">
    <circle cx="8" cy="8" r="2.2" />
    <path d="M8 1.8v1.7M8 12.5v1.7M14.2 8h-1.7M3.5 8H1.8M12.4 3.6l-1.2 1.2M4.8 11.2l-1.2 1.2M12.4 12.4l-1.2-1.2M4.8 4.8L3.6 3.6" />
  </Svg>
);

/** A panel with its left column marked: shows / hides the sidebar. */
export const SidebarIcon = (): ReactNode => (
  <Svg title="Sidebar">
    <rect x="2" y="3" width="12" height="10" rx="1.5" />
    <path d="M6 3v10" />
  </Svg>
);

export const PlusIcon = (): ReactNode => (
  <Svg title="New">
    <path d="M8 3v10M3 8h10" />
  </Svg>
);

export const CommandIcon = (): ReactNode => (
  <Svg title="Commands">
    <path d="M3 4.5l3 3.5-3 3.5M8 12h5" />
  </Svg>
);

export const MoreIcon = (): ReactNode => (
  <Svg title="More">
    <circle cx="3.5" cy="8" r="0.6" />
    <circle cx="8" cy="8" r="0.6" />
    <circle cx="12.5" cy="8" r="0.6" />
  </Svg>
);
