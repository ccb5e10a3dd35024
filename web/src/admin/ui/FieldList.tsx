import type { ReactNode } from "react";
import { actorLabel, fieldLabel, statusLabel } from "../labels.js";
import { formatUsdt } from "../format.js";
import { Ident } from "./Ident.js";
import { StatusBadge } from "./StatusBadge.js";
import { When } from "./When.js";

const AMOUNT = /^\d+\.\d{6}$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;
/** Link fields shown as the link of the value they belong to, not as rows of their own. */
const LINKS: Record<string, string> = {
  explorer_url: "tx_hash",
  tx_explorer_url: "tx_hash",
  address_explorer_url: "address",
};

function isIdent(name: string): boolean {
  return name.endsWith("hash") || name.endsWith("address") || name === "usdt_contract";
}

/** One value in people's words: amounts with their unit, times in the one format, codes in words. */
function present(name: string, value: unknown, fields: Record<string, unknown>, testId?: string): ReactNode {
  if (value === null || value === undefined || value === "") return <span data-testid={testId}>—</span>;
  if (typeof value === "boolean") return <span data-testid={testId}>{value ? "Yes" : "No"}</span>;
  const text = String(value);
  if (isIdent(name)) {
    const link = Object.entries(LINKS).find(([, of]) => of === name && typeof fields[of] === "string");
    const href = link ? fields[link[0]] : undefined;
    return <Ident value={text} href={typeof href === "string" ? href : null} testId={testId} />;
  }
  if (name === "status" || name.endsWith("_status")) return <StatusBadge status={text} testId={testId} />;
  if (name === "created_by" || name === "decided_by" || name === "actor")
    return <span data-testid={testId}>{actorLabel(text)}</span>;
  if (name.endsWith("_url") && /^https?:\/\//.test(text))
    return (
      <a href={text} target="_blank" rel="noopener noreferrer" data-testid={testId} data-verbatim>
        {text}
      </a>
    );
  if (ISO_TIME.test(text))
    return (
      <span data-testid={testId}>
        <When at={text} />
      </span>
    );
  if (AMOUNT.test(text) && (name.startsWith("amount") || name.endsWith("amount") || name === "balance"))
    return <span data-testid={testId}>{formatUsdt(text)}</span>;
  if (/^[a-z]+(_[a-z]+)+$/.test(text)) return <span data-testid={testId}>{statusLabel(text)}</span>;
  return <span data-testid={testId}>{text}</span>;
}

/**
 * A record's fields as a name/value list in people's words: human labels, amounts with their
 * unit, one date format, hashes and addresses with explorer links and copy buttons. Nested objects
 * and arrays are left out (their own sections show them); link fields go with their value.
 */
export function FieldList({
  fields,
  testId,
  valueTestIds = false,
  hide = [],
}: {
  fields: Record<string, unknown>;
  testId?: string;
  /** Marks each value `field-<name>` (for pages whose tests read single fields). */
  valueTestIds?: boolean;
  /** Fields the page shows elsewhere. */
  hide?: readonly string[];
}) {
  return (
    <dl className="fields" data-testid={testId}>
      {Object.entries(fields)
        .filter(
          ([name, value]) =>
            (typeof value !== "object" || value === null) && !(name in LINKS) && !hide.includes(name),
        )
        .map(([name, value]) => (
          <div key={name}>
            <dt>{fieldLabel(name)}</dt>
            <dd>{present(name, value, fields, valueTestIds ? `field-${name}` : undefined)}</dd>
          </div>
        ))}
    </dl>
  );
}
