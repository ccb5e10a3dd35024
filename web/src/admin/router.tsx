import { useEffect, useState, type ReactNode } from "react";

/**
 * A tiny history router for /admin/*: pushState navigation (replaceState with `replace`, so Back
 * skips the page), back/forward via popstate.
 */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: window.location.pathname, query: new URLSearchParams(window.location.search) });
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const onChange = () => setLocation(read());
    window.addEventListener("popstate", onChange);
    return () => window.removeEventListener("popstate", onChange);
  }, []);
  return location;
}

/** An in-app link: a real href (new tab, copy link), navigated without a page load. */
export function Link({ to, children, testId }: { to: string; children: ReactNode; testId?: string }) {
  return (
    <a
      href={to}
      data-testid={testId}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
