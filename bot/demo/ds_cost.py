"""What a GraphQL document costs the dossier service, as it scores it before running anything
(ds-graphql.md §10.2: graphql-ruby 2.5/2.6's complexity and depth, page size 100).

The service refuses a document over `MAX_COMPLEXITY` or `MAX_DEPTH` without executing it (HTTP
200, no `data`). The dossier stand-in refuses the same way, and the tests score every document the
bot can send with this, so a field added to a page is caught before the service refuses the page.

Scoring: every field costs 1 + its children; plain lists are not multiplied; a `…Connection`
costs `1 + page × items + meta`, `page` being the requested `max(first, last)` (100 when absent,
never capped), `meta` 1 per direct child plus 1 per `pageInfo` subfield; aliases count apart,
repeated fields merge; on an interface or a union the dearest concrete type counts; variables and
`@include`/`@skip` are resolved first.
"""

from __future__ import annotations

from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLBoolean,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    Undefined,
    get_named_type,
    is_abstract_type,
    parse,
    value_from_ast,
    value_from_ast_untyped,
)

MAX_COMPLEXITY = 60_000
MAX_DEPTH = 15
#: a connection's page when the document asks for none
DEFAULT_PAGE = 100

Entry = tuple[Any, FieldNode]  # (the type the field was selected on, the field)


class _Scorer:
    def __init__(self, schema: GraphQLSchema, document: DocumentNode, variables: dict[str, Any] | None,
                 operation_name: str | None) -> None:
        self.schema = schema
        self.fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
        operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)
                      and (operation_name is None or (d.name is not None and d.name.value == operation_name))]
        if not operations:
            raise ValueError(f"no operation {operation_name!r} in the document")
        self.operation = operations[0]
        self.variables = {v.variable.name.value: value_from_ast_untyped(v.default_value)
                          for v in self.operation.variable_definitions or () if v.default_value is not None}
        self.variables.update(variables or {})
        root = {"query": schema.query_type, "mutation": schema.mutation_type}[self.operation.operation.value]
        assert root is not None
        self.root: GraphQLObjectType = root

    def skipped(self, selection: Any) -> bool:
        for directive in selection.directives or ():
            if directive.name.value in ("include", "skip") and directive.arguments:
                condition = value_from_ast(directive.arguments[0].value, GraphQLBoolean, self.variables)
                if (directive.name.value, condition) in (("include", False), ("skip", True)):
                    return True
        return False

    def collect(self, selections: SelectionSetNode, condition: Any, out: list[Entry]) -> list[Entry]:
        """The fields selected, fragments expanded, each with the type it was selected on."""
        for selection in selections.selections:
            if self.skipped(selection):
                continue
            if isinstance(selection, FieldNode):
                out.append((condition, selection))
            elif isinstance(selection, InlineFragmentNode):
                on = self.schema.get_type(selection.type_condition.name.value) if selection.type_condition else condition
                self.collect(selection.selection_set, on, out)
            elif isinstance(selection, FragmentSpreadNode):
                fragment = self.fragments[selection.name.value]
                self.collect(fragment.selection_set, self.schema.get_type(fragment.type_condition.name.value), out)
        return out

    def selection_cost(self, parent: GraphQLNamedType, entries: list[Entry]) -> int:
        best = 0
        for concrete in self.schema.get_possible_types(parent) if is_abstract_type(parent) else [parent]:
            by_key: dict[str, list[Entry]] = {}
            for condition, node in entries:
                if condition is concrete or (is_abstract_type(condition) and self.schema.is_sub_type(condition, concrete)):
                    by_key.setdefault(_key(node), []).append((condition, node))
            best = max(best, sum(self.field_cost(same) for same in by_key.values()))
        return best

    def field_cost(self, same: list[Entry]) -> int:
        condition, node = same[0]
        if node.name.value.startswith("__"):
            return 1
        definition = condition.fields[node.name.value]
        named = get_named_type(definition.type)
        entries = [e for _, n in same if n.selection_set for e in self.collect(n.selection_set, named, [])]
        children = self.selection_cost(named, entries) if entries else 0
        if not named.name.endswith("Connection"):
            return 1 + children
        meta = self.connection_meta(named, entries)
        return 1 + self.page_size(node, definition) * (children - meta) + meta

    def page_size(self, node: FieldNode, definition: Any) -> int:
        """A connection's page as asked (`first`, `last`: the larger), or the service's default."""
        sizes = []
        for argument in node.arguments or ():
            if argument.name.value in ("first", "last"):
                value = value_from_ast(argument.value, definition.args[argument.name.value].type, self.variables)
                if value is not Undefined and value is not None:
                    sizes.append(value)
        return max(sizes) if sizes else DEFAULT_PAGE

    def connection_meta(self, named: Any, entries: list[Entry]) -> int:
        """What a connection's own fields cost once, not per item: 1 each, and pageInfo's subfields."""
        meta = 0
        for key in {_key(n) for _, n in entries}:
            meta += 1
            if key not in ("nodes", "edges"):  # pageInfo: +1 per distinct subfield
                subs = [n for _, n in entries if _key(n) == key]
                sub_type = get_named_type(named.fields[subs[0].name.value].type)
                meta += len({_key(m) for n in subs if n.selection_set for _, m in self.collect(n.selection_set, sub_type, [])})
        return meta

    def depth(self, selections: SelectionSetNode, parent: Any) -> int:
        deepest = 0
        for condition, node in self.collect(selections, parent, []):
            if node.name.value.startswith("__") or not node.selection_set:
                deepest = max(deepest, 1)
                continue
            named = get_named_type(condition.fields[node.name.value].type)
            deepest = max(deepest, 1 + self.depth(node.selection_set, named))
        return deepest


def _key(node: FieldNode) -> str:
    return (node.alias or node.name).value


def cost(schema: GraphQLSchema, document: str, variables: dict[str, Any] | None = None,
         operation_name: str | None = None) -> int:
    """The document's complexity as the service computes it."""
    scorer = _Scorer(schema, parse(document), variables, operation_name)
    return scorer.selection_cost(scorer.root, scorer.collect(scorer.operation.selection_set, scorer.root, []))


def depth(schema: GraphQLSchema, document: str, operation_name: str | None = None) -> int:
    """How deep the document's fields nest (a root field is at depth 1)."""
    scorer = _Scorer(schema, parse(document), None, operation_name)
    return scorer.depth(scorer.operation.selection_set, scorer.root)


def refusal(schema: GraphQLSchema, document: str, variables: dict[str, Any] | None = None,
            operation_name: str | None = None, *, max_complexity: int = MAX_COMPLEXITY) -> str | None:
    """The service's words when it refuses the document before running it, else None."""
    found = depth(schema, document, operation_name)
    if found > MAX_DEPTH:
        return f"Query has depth of {found}, which exceeds max depth of {MAX_DEPTH}"
    scored = cost(schema, document, variables, operation_name)
    if max_complexity and scored > max_complexity:
        return f"Query has complexity of {scored}, which exceeds max complexity of {max_complexity}"
    return None
