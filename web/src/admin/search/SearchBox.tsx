import { useEffect, useState } from "react";
import { navigate } from "../router.js";

/**
 * The console's one search box, above every page: paste an order or payout ID, a merchant's
 * reference, a deposit address or a transaction hash, and the search page lists what matches.
 */
export function SearchBox({ current }: { current: string }) {
  const [q, setQ] = useState(current);
  useEffect(() => setQ(current), [current]);
  return (
    <form
      role="search"
      className="searchbar"
      onSubmit={(event) => {
        event.preventDefault();
        const query = q.trim();
        if (query !== "") navigate(`/admin/search?q=${encodeURIComponent(query)}`);
      }}
    >
      <label htmlFor="console-search" className="visually-hidden">
        Search orders, payouts and transfers
      </label>
      <input
        id="console-search"
        type="search"
        value={q}
        onChange={(event) => setQ(event.target.value)}
        placeholder="Order or payout ID, reference, address, transaction hash"
        autoComplete="off"
        spellCheck={false}
        data-testid="search-input"
      />
      <button type="submit" data-testid="search-submit">
        Search
      </button>
    </form>
  );
}
