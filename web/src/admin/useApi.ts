import { useCallback, useEffect, useState } from "react";
import { ApiError } from "./api.js";

export type Loaded<T> = { state: "loading" } | { state: "ok"; data: T } | { state: "error"; message: string };

/** Loads `load()` whenever `key` changes; `reload()` loads again (after an action). */
export function useApi<T>(load: () => Promise<T>, key: string): Loaded<T> & { reload: () => void } {
  const [value, setValue] = useState<Loaded<T>>({ state: "loading" });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let cancelled = false;
    load()
      .then((data) => !cancelled && setValue({ state: "ok", data }))
      .catch((error: unknown) => {
        if (!cancelled) setValue({ state: "error", message: errorMessage(error) });
      });
    return () => {
      cancelled = true;
    };
    // `load` is recreated on every render; `key` says when it really changed.
  }, [key, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...value, reload };
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * An action on a page (suspend a merchant, change a role): `run` clears the last refusal, calls
 * the API and then `onDone` (a reload); a refusal stays in `error`, in the API's words.
 */
export function useAction(onDone: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      onDone();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
