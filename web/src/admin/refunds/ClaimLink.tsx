/** The claim link of a refund created without an address: the API shows it this once. */
export function ClaimLink({ url, testId }: { url: string; testId: string }) {
  return (
    <>
      <p>Send this link to the payer; it is shown only once and expires in 7 days:</p>
      <code className="mono block" data-testid={testId}>
        {url}
      </code>
    </>
  );
}
