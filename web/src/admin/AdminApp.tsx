import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { api, ApiError, setUnauthorizedHandler, type Me } from "./api.js";
import { AuditPage } from "./AuditPage.js";
import { MeContext } from "./me.js";
import { OperatorsPage } from "./OperatorsPage.js";
import { SecurityPage } from "./SecurityPage.js";
import { DepositAddressDetailPage, DepositAddressesPage } from "./DepositAddressesPage.js";
import { MerchantDetailPage, MerchantsPage } from "./MerchantsPage.js";
import { OrderDetailPage } from "./OrderDetailPage.js";
import { OrdersPage } from "./OrdersPage.js";
import { OverviewPage } from "./OverviewPage.js";
import { PayoutDetailPage, PayoutsPage } from "./PayoutsPage.js";
import { Link, useLocation } from "./router.js";
import { StrayTransferPage, StrayTransfersPage } from "./StrayTransfersPage.js";
import { WalletPage } from "./WalletPage.js";
import { errorMessage } from "./useApi.js";
import { useMe } from "./me.js";

type Session = { state: "checking" } | { state: "in"; me: Me } | { state: "out" };

/** The operator dashboard at /admin: the admin API behind its cookie session. */
export function AdminApp() {
  const [session, setSession] = useState<Session>({ state: "checking" });
  const refresh = () =>
    api
      .get<Me>("/me")
      .then((me) => setSession({ state: "in", me }))
      .catch(() => setSession({ state: "out" }));
  useEffect(() => {
    setUnauthorizedHandler(() => setSession({ state: "out" }));
    void refresh();
  }, []);
  useEffect(() => {
    document.title = "Stablegate admin";
  }, []);

  if (session.state === "checking") return <p className="admin-loading">Loading…</p>;
  if (session.state === "out") {
    if (window.location.pathname === "/admin/invitation") return <AcceptInvitation />;
    return <Login onIn={() => void refresh()} />;
  }
  return (
    <MeContext.Provider value={session.me}>
      <Shell onOut={() => setSession({ state: "out" })} onChanged={() => void refresh()} />
    </MeContext.Provider>
  );
}

/** The one-time invitation link: /admin/invitation#token=... sets the invited operator's password. */
function AcceptInvitation() {
  const token = new URLSearchParams(window.location.hash.slice(1)).get("token") ?? "";
  const [password, setPassword] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const reply = await api.post<{ email: string }>("/auth/accept-invitation", { token, password });
      setMessage(`Password set for ${reply.email}. You can log in now.`);
      window.history.replaceState(null, "", "/admin");
    } catch (caught) {
      setMessage(errorMessage(caught));
    }
  };
  return (
    <main className="card">
      <h1>Set your password</h1>
      <form onSubmit={(event) => void submit(event)} className="stack">
        <label>
          New password (12+ characters)
          <input
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            data-testid="invitation-password"
            required
          />
        </label>
        <button type="submit" data-testid="accept-invitation">
          Set password
        </button>
        {message && <p data-testid="invitation-message">{message}</p>}
        {message?.startsWith("Password set") && <a href="/admin">Log in</a>}
      </form>
    </main>
  );
}

function Login({ onIn }: { onIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [totpCode, setTotpCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post("/auth/login", {
        password,
        ...(email.trim() ? { email: email.trim() } : {}),
        ...(totpCode.trim() ? { totp_code: totpCode.trim() } : {}),
      });
      onIn();
    } catch (caught) {
      const code = caught instanceof ApiError ? caught.code : "";
      setError(
        code === "INVALID_PASSWORD"
          ? "Wrong password."
          : code === "TOTP_REQUIRED"
            ? "Enter the code from your authenticator app (or a recovery code)."
            : code === "TOTP_INVALID"
              ? "That code is wrong or was already used; wait for the next one."
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
          Email (leave empty for the owner&apos;s admin password)
          <input
            type="email"
            autoComplete="username"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            data-testid="email"
          />
        </label>
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            data-testid="password"
            required
          />
        </label>
        <label>
          Authenticator code (if two-factor authentication is on)
          <input
            inputMode="numeric"
            autoComplete="one-time-code"
            value={totpCode}
            onChange={(event) => setTotpCode(event.target.value)}
            data-testid="totp"
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
  { to: "/admin", label: "Overview", permission: "stats.read" },
  { to: "/admin/orders", label: "Orders", permission: "orders.read" },
  { to: "/admin/merchants", label: "Merchants", permission: "merchants.read" },
  { to: "/admin/payouts", label: "Payouts", permission: "payouts.read" },
  { to: "/admin/deposit-addresses", label: "Deposit addresses", permission: "deposit_addresses.read" },
  { to: "/admin/wallet", label: "Wallet", permission: "wallet.read" },
  { to: "/admin/operators", label: "Operators", permission: "operators.read" },
  { to: "/admin/audit", label: "Audit", permission: "audit.read" },
  { to: "/admin/security", label: "Security", permission: "account.self" },
  { to: "/admin/stray-transfers", label: "Strays", permission: "strays.read" },
];

function Shell({ onOut, onChanged }: { onOut: () => void; onChanged: () => void }) {
  const me = useMe();
  const location = useLocation();
  // Under ADMIN_REQUIRE_2FA an operator without TOTP can use only the Security page.
  const path = me.totp_required ? "/admin/security" : location.path;
  const query = location.query;
  const logout = async () => {
    await api.post("/auth/logout").catch(() => undefined);
    onOut();
  };
  const orderMatch = /^\/admin\/orders\/([^/]+)$/.exec(path);
  const strayMatch = /^\/admin\/stray-transfers\/([^/]+)$/.exec(path);
  const payoutMatch = /^\/admin\/payouts\/([^/]+)$/.exec(path);
  const merchantMatch = /^\/admin\/merchants\/([^/]+)$/.exec(path);
  let page: ReactNode;
  const depositMatch = /^\/admin\/deposit-addresses\/([^/]+)$/.exec(path);
  if (depositMatch) page = <DepositAddressDetailPage id={decodeURIComponent(depositMatch[1] ?? "")} />;
  else if (path === "/admin/deposit-addresses") page = <DepositAddressesPage query={query} />;
  else if (orderMatch) page = <OrderDetailPage id={decodeURIComponent(orderMatch[1] ?? "")} />;
  else if (strayMatch) page = <StrayTransferPage id={decodeURIComponent(strayMatch[1] ?? "")} />;
  else if (path === "/admin/stray-transfers") page = <StrayTransfersPage />;
  else if (path === "/admin/orders") page = <OrdersPage query={query} />;
  else if (path === "/admin/merchants") page = <MerchantsPage />;
  else if (merchantMatch) page = <MerchantDetailPage id={decodeURIComponent(merchantMatch[1] ?? "")} />;
  else if (path === "/admin/payouts") page = <PayoutsPage query={query} />;
  else if (payoutMatch) page = <PayoutDetailPage id={decodeURIComponent(payoutMatch[1] ?? "")} />;
  else if (path === "/admin/wallet") page = <WalletPage />;
  else if (path === "/admin/operators") page = <OperatorsPage />;
  else if (path === "/admin/audit") page = <AuditPage />;
  else if (path === "/admin/security") page = <SecurityPage onChanged={onChanged} />;
  else if (path === "/admin" || path === "/admin/") page = <OverviewPage />;
  else page = <h1>Page not found</h1>;
  return (
    <div className="admin">
      <nav className="admin-nav">
        <strong>Stablegate</strong>
        {NAV.filter(
          (item) =>
            me.permissions.includes(item.permission) &&
            (!me.totp_required || item.permission === "account.self"),
        ).map((item) => (
          <span key={item.to} className={path === item.to ? "active" : undefined}>
            <Link to={item.to} testId={`nav-${item.label.toLowerCase().replace(/ /g, "-")}`}>
              {item.label}
            </Link>
          </span>
        ))}
        <span className="who" data-testid="who">
          {me.email ?? "owner"} ({me.role})
        </span>
        <button type="button" onClick={() => void logout()} data-testid="logout">
          Log out
        </button>
      </nav>
      <main className="admin-main">{page}</main>
    </div>
  );
}
