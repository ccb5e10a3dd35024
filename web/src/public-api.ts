/** What a public page's read gave: the reply, not found (a wrong or outdated link), or no answer (retried). */
export type Fetched<T> = { kind: "ok"; data: T } | { kind: "not_found" } | { kind: "error" };

/** A GET of the public API (the checkout and refund claim pages): never cached, never throws. */
export async function fetchPublic<T>(path: string, signal?: AbortSignal): Promise<Fetched<T>> {
  try {
    const response = await fetch(path, {
      headers: { accept: "application/json" },
      cache: "no-store",
      signal,
    });
    if (response.status === 404) return { kind: "not_found" };
    if (!response.ok) return { kind: "error" };
    return { kind: "ok", data: (await response.json()) as T };
  } catch {
    return { kind: "error" };
  }
}
