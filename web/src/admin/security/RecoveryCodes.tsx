/** Fresh recovery codes, shown this once until the operator says they are saved. */
export function RecoveryCodes({ codes, onSaved }: { codes: string[]; onSaved: () => void }) {
  return (
    <div className="secret-once" data-testid="recovery-codes">
      <p>Recovery codes: each works once in place of a code. They are shown only now; keep them safe.</p>
      <ul className="mono">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <button type="button" data-testid="recovery-codes-done" onClick={onSaved}>
        I have saved them
      </button>
    </div>
  );
}
