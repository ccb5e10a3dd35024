/**
 * Vitest setup file (vitest.config.ts): every test file's in-process apps are contract-checked
 * against docs/openapi.json (test/helpers/contract.ts). A test whose responses broke the contract
 * fails; so does the file when its beforeAll/afterAll hooks received one.
 */
import { afterAll, afterEach } from "vitest";
import { formatViolations, installContractCheck, takeViolations } from "./contract.js";

installContractCheck();

function assertContract(): void {
  const violations = takeViolations();
  if (violations.length > 0) throw new Error(formatViolations(violations));
}

afterEach(assertContract);
afterAll(assertContract);
