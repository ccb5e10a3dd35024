/**
 * The lint rule that makes the package boundaries of ARCHITECTURE.md a checked fact
 * (`stablegate/package-boundaries`, configured per folder in eslint.config.js):
 *
 * - inside a package (`{ package: "packages/sdk", allow: [...] }`): every import, re-export,
 *   dynamic import() and import("...") type is a Node built-in, a file of the same package, or one
 *   of the npm packages in `allow`. Anything else (the server, another package, an undeclared npm
 *   package) is an error;
 * - outside the packages (`{ package: null }`): a relative path into packages/ is an error; the
 *   service, tests and scripts import a package by its name (@stablegate/tron/address).
 */
import { builtinModules } from "node:module";
import { dirname, relative, resolve, sep } from "node:path";
import { importVisitors } from "./eslint-imports.js";

const ROOT = resolve(import.meta.dirname, "..");
const BUILTINS = new Set(builtinModules);

/** "@scope/name/sub/path" -> "@scope/name"; "name/sub" -> "name". */
function packageName(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

function isBuiltin(specifier) {
  return specifier.startsWith("node:") || BUILTINS.has(packageName(specifier));
}

const rule = {
  meta: {
    type: "problem",
    docs: { description: "keeps each workspace package to its declared imports (ARCHITECTURE.md)" },
    schema: [
      {
        type: "object",
        properties: {
          package: { type: ["string", "null"] },
          allow: { type: "array", items: { type: "string" } },
        },
        required: ["package"],
        additionalProperties: false,
      },
    ],
    messages: {
      outside: "{{pkg}} may import only Node built-ins{{allowed}} and its own files, not '{{specifier}}'",
      reachIn: "import the workspace package by its name (@stablegate/...), not the path '{{specifier}}'",
    },
  },
  create(context) {
    const { package: pkg, allow = [] } = context.options[0] ?? { package: null };
    const file = context.filename;
    const packageDir = pkg === null ? null : resolve(ROOT, pkg);
    const packagesDir = resolve(ROOT, "packages");
    const inside = (dir, path) => {
      const rel = relative(dir, path);
      return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel));
    };

    function check(node, specifier) {
      if (typeof specifier !== "string") return;
      const relativePath = specifier.startsWith("./") || specifier.startsWith("../");
      if (packageDir === null) {
        if (relativePath && inside(packagesDir, resolve(dirname(file), specifier))) {
          context.report({ node, messageId: "reachIn", data: { specifier } });
        }
        return;
      }
      if (relativePath ? inside(packageDir, resolve(dirname(file), specifier)) : isBuiltin(specifier)) return;
      if (!relativePath && allow.includes(packageName(specifier))) return;
      const allowed = allow.length > 0 ? `, ${allow.join(", ")}` : "";
      context.report({ node, messageId: "outside", data: { pkg, specifier, allowed } });
    }

    return importVisitors(check);
  },
};

export default { rules: { "package-boundaries": rule } };
