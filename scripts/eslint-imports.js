/**
 * The ESLint visitors that find every module a file reaches: import and export ... from, dynamic
 * import(), import("...") types, `import x = require(...)` and require(). Shared by the package
 * boundary and layer rules, so both see the same imports. `check(node, specifier)` gets the node to
 * report on and the specifier text.
 */
export function importVisitors(check) {
  const fromSource = (node) => {
    if (node.source) check(node.source, node.source.value);
  };
  return {
    ImportDeclaration: fromSource,
    ExportNamedDeclaration: fromSource,
    ExportAllDeclaration: fromSource,
    ImportExpression(node) {
      if (node.source.type === "Literal") check(node.source, node.source.value);
    },
    TSImportType(node) {
      const argument = node.argument?.literal ?? node.argument;
      if (argument?.type === "Literal") check(argument, argument.value);
    },
    TSImportEqualsDeclaration(node) {
      const reference = node.moduleReference;
      if (reference.type === "TSExternalModuleReference")
        check(reference.expression, reference.expression.value);
    },
    CallExpression(node) {
      const [first] = node.arguments;
      if (node.callee.type === "Identifier" && node.callee.name === "require" && first?.type === "Literal") {
        check(first, first.value);
      }
    },
  };
}
