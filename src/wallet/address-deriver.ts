/** TRON's module, moved to src/chains/tron/ behind the chain boundary: this path serves tests. */
export * from "../chains/tron/address-deriver.js";
