/** Moved behind the chain boundary: TRON's implementation lives in src/chains/tron/. This path stays for tests and benchmarks. */
export * from "../chains/tron/address-deriver.js";
