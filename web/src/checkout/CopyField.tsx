import { useEffect, useState } from "react";

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Plain-http deployments have no Clipboard API outside localhost: select-and-copy instead.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

/** A value the payer copies into a wallet (amount, address), with its Copy button. */
export function CopyField({
  label,
  value,
  testId,
  mono,
}: {
  label: string;
  value: string;
  testId: string;
  mono?: boolean;
}) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <div className="field">
      <span className="field-label">{label}</span>
      <div className="field-row">
        <code className={mono ? "field-value mono" : "field-value"} data-testid={testId}>
          {value}
        </code>
        <button
          type="button"
          data-testid={`copy-${testId}`}
          onClick={() => void copyText(value).then(setCopied)}
          aria-label={`Copy ${label.toLowerCase()}`}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
    </div>
  );
}
