import { useState } from "react";

/**
 * A hash or an address: the full value in monospace (it wraps on a phone), a link to the block
 * explorer when one is known, and a copy button.
 */
export function Ident({ value, href, testId }: { value: string; href?: string | null; testId?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    void navigator.clipboard?.writeText(value).then(
      () => {
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      },
      () => undefined,
    );
  return (
    <span className="ident">
      {href ? (
        <a href={href} target="_blank" rel="noopener noreferrer" title="Open in the block explorer">
          <code data-testid={testId}>{value}</code>
        </a>
      ) : (
        <code data-testid={testId}>{value}</code>
      )}
      <button type="button" className="copy" onClick={copy} aria-label={`Copy ${value}`}>
        {copied ? "Copied" : "Copy"}
      </button>
    </span>
  );
}
