import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { api, ApiError, setUnauthorizedHandler } from "./api.js";
import { DepositAddressDetailPage, DepositAddressesPage } from "./DepositAddressesPage.js";
import { MerchantsPage } from "./MerchantsPage.js";
import { OrderDetailPage } from "./OrderDetailPage.js";
import { OrdersPage } from "./OrdersPage.js";
import { OverviewPage } from "./OverviewPage.js";
import { Link, useLocation } from "./router.js";
import { StrayTransferPage, StrayTransfersPage } from "./StrayTransfersPage.js";
import { WalletPage } from "./WalletPage.js";
import { errorMessage } from "./useApi.js";

type Session = "checking" | "in" | "out";

/** The operator dashboard at /admin: the admin API behind its cookie session. */
export function AdminApp() {
  const [session, setSession] = useState<Session>("checking");
  useEffect(() => {
    setUnauthorizedHandler(() => setSession("out"));
    api
      .get("/stats")
      .then(() => setSession("in"))
      .catch(() => setSession("out"));
  }, []);
  useEffect(() => {
    document.title = "Stablegate admin";
  }, []);

  if (session === "checking") return <p className="admin-loading">Loading…</p>;
  if (session === "out") return <Login onIn={() => setSession("in")} />;
  return <Shell onOut={() => setSession("out")} />;
}

function Login({ onIn }: { onIn: () => void }) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post("/auth/login", { password });
      onIn();
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.code === "INVALID_PASSWORD"
          ? "Wrong password."
          : errorMessage(caught),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="card">
      <h1>Stablegate admin</h1>
      <form onSubmit={(event) => void submit(event)} className="stack">
        <label>
          Admin password
          <input
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            data-testid="password"
            required
          />
        </label>
        <button type="submit" disabled={busy} data-testid="login">
          Log in
        </button>
        {error && (
          <p className="error" role="alert" data-testid="login-error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

const NAV = [
  { to: "/admin", label: "Overview" },
  { to: "/admin/orders", label: "Orders" },
  { to: "/admin/merchants", label: "Merchants" },
  { to: "/admin/deposit-addresses", label: "Deposit addresses" },
  { to: "/admin/wallet", label: "Wallet" },
  { to: "/admin/stray-transfers", label: "Strays" },
];

function Shell({ onOut }: { onOut: () => void }) {
  const { path, query } = useLocation();
  const logout = async () => {
    await api.post("/auth/logout").catch(() => undefined);
    onOut();
  };
  const orderMatch = /^\/admin\/orders\/([^/]+)$/.exec(path);
  const strayMatch = /^\/admin\/stray-transfers\/([^/]+)$/.exec(path);
  let page: ReactNode;
  const depositMatch = /^\/admin\/deposit-addresses\/([^/]+)$/.exec(path);
  if (depositMatch) page = <DepositAddressDetailPage id={decodeURIComponent(depositMatch[1] ?? "")} />;
  else if (path === "/admin/deposit-addresses") page = <DepositAddressesPage query={query} />;
  else if (orderMatch) page = <OrderDetailPage id={decodeURIComponent(orderMatch[1] ?? "")} />;
  else if (strayMatch) page = <StrayTransferPage id={decodeURIComponent(strayMatch[1] ?? "")} />;
  else if (path === "/admin/stray-transfers") page = <StrayTransfersPage />;
  else if (path === "/admin/orders") page = <OrdersPage query={query} />;
  else if (path === "/admin/merchants") page = <MerchantsPage />;
  else if (path === "/admin/wallet") page = <WalletPage />;
  else if (path === "/admin" || path === "/admin/") page = <OverviewPage />;
  else page = <h1>Page not found</h1>;
  return (
    <div className="admin">
      <nav className="admin-nav">
        <strong>Stablegate</strong>
        {NAV.map((item) => (
          <span key={item.to} className={path === item.to ? "active" : undefined}>
            <Link to={item.to} testId={`nav-${item.label.toLowerCase().replace(/ /g, "-")}`}>
              {item.label}
            </Link>
          </span>
        ))}
        <button type="button" onClick={() => void logout()} data-testid="logout">
          Log out
        </button>
      </nav>
      <main className="admin-main">{page}</main>
    </div>
  );
}
