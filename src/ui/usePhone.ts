// Whether the page is laid out for a phone: the media query styles.css uses, read by the components that differ there.
import { useSyncExternalStore } from 'react';

/** The phone layout's width (styles.css uses the same query). */
export const PHONE_QUERY = '(max-width: 640px)';

const watchPhone = (onChange: () => void) => {
  const m = window.matchMedia(PHONE_QUERY);
  m.addEventListener('change', onChange);
  return () => m.removeEventListener('change', onChange);
};

/** Whether the page is laid out for a phone (one column); false where there is no window (server rendering). */
export function usePhone(): boolean {
  return useSyncExternalStore(watchPhone, () => window.matchMedia(PHONE_QUERY).matches, () => false);
}
