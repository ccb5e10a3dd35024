/** A refusal or failure the operator must read, announced to screen readers; nothing when `error` is null. */
export function ErrorAlert({ error, testId }: { error: string | null; testId?: string }) {
  if (!error) return null;
  return (
    <p className="error" role="alert" data-testid={testId}>
      {error}
    </p>
  );
}
