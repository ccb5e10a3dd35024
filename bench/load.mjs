// The load generator of bench/order-create.ts, run as a child process so that autocannon does not
// share the event loop (and one of the two cores' worth of scheduling) with the server it measures.
// argv: JSON {url, headers, connections, duration, bodyTemplate, prefix}. Prints one JSON line.
import process from "node:process";
import autocannon from "autocannon";

const options = JSON.parse(process.argv[2]);
let counter = 0;
const instance = autocannon({
  url: options.url,
  method: "POST",
  connections: options.connections,
  duration: options.duration,
  headers: { "content-type": "application/json", ...options.headers },
  requests: [
    {
      setupRequest(request) {
        // Every request a new external_id, so every request creates an order.
        request.body = JSON.stringify({
          ...options.bodyTemplate,
          external_id: `${options.prefix}-${counter++}`,
        });
        return request;
      },
    },
  ],
});
instance.on("done", (result) => {
  process.stdout.write(
    `${JSON.stringify({
      requests: result.requests.total,
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: result.statusCodeStats,
    })}\n`,
  );
});
