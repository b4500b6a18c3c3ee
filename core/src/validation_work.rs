//! The bound on the work of validating against a received schema (SEC-4). A server's schema is
//! untrusted input just as its result is: a schema whose evaluation branches over a recursive
//! reference makes a validator do work exponential in the depth of a small value. The default
//! npm build validates with the caller's own validator, which nothing can interrupt, so the
//! rule is checked on the schema alone, before any value is seen, and every flavour answers
//! alike: `limit-exceeded` at the schema's path.
//!
//! The rule (docs/spec, "Decision: bounded validation work"): read the schema as an automaton
//! whose states are its subschemas and whose letters are the child positions of a value (an
//! array element at an index or from an index on, an object member by name or any name
//! outside a set, a member name). Applicators that stay at the same value (`allOf`, `anyOf`,
//! `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`, `$ref`, …) are followed at once;
//! the others (`items`, `prefixItems`, `contains`, `properties`, `additionalProperties`, …)
//! read a letter. Validating a value evaluates each subschema at a position once per run of
//! the automaton that reaches it. The schema is refused when
//! - some subschema reaches itself at the same value (`{"$ref": "#"}`): evaluation never ends;
//! - the automaton is exponentially ambiguous: some subschema has two different runs back to
//!   itself over the same positions (two `anyOf` branches that both take an array's elements
//!   into the same recursive `$ref`). Then each level of nesting doubles the work. Found, as
//!   usual for NFAs, in the product of the automaton with itself, within each strongly connected
//!   component;
//! - one evaluation at one value reaches more than [`IN_PLACE_CAP`] subschemas at that value
//!   (references that fan out and meet again, `a: anyOf[b, b]`, `b: anyOf[c, c]`, …);
//! - more than [`RUNS_CAP`] runs from the root reach one position of a value no deeper than
//!   [`MAX_DEPTH_CEILING`] (branches that take the same child values into the same
//!   subschema, nested level after level without recursion, or recursion that is polynomially
//!   ambiguous);
//! - the analysis itself would exceed [`ANALYSIS_CAP`] steps (a schema too tangled to bound).
//!
//! Ordinary recursion is accepted: a tree whose `items` refer back once, a tuple of two
//! children that both refer back (different positions), and the "any JSON value" schema whose
//! `anyOf` branches recurse through `items` and `additionalProperties` (elements and members
//! are never the same position). Positions are compared conservatively (`patternProperties`
//! may match any name), so the rule may refuse a schema that a finer reading would accept,
//! never the reverse.

// Graph algorithms over dense ids this module issues itself (nodes, edges, pairs of nodes):
// every index is one it handed out, so indexing cannot fail on any input. The fuzz targets
// `op_declare` and `op_accept` reach this code with arbitrary schemas.
#![allow(clippy::indexing_slicing)]

use crate::error::{pointer_push, Error, ErrorCode, Result};
use crate::limits::MAX_DEPTH_CEILING;
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

/// The most subschemas one evaluation may visit at one value.
pub const IN_PLACE_CAP: u64 = 100_000;

/// The most runs that may reach one position of a value: how many times, at most, one
/// subschema is evaluated there for every time the schema is evaluated at the root.
pub const RUNS_CAP: u64 = 1_024;

/// The most steps the analysis takes (transitions summed over closures, pairs of the product).
pub const ANALYSIS_CAP: usize = 4_000_000;

/// A child position of a value, as a keyword that descends one level reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Letter {
    /// The array element at this index (`prefixItems`, the array form of `items`).
    Index(usize),
    /// Every array element from this index on (`items`, `additionalItems`, `contains`,
    /// `unevaluatedItems`).
    From(usize),
    /// The object member of this name (`properties`).
    Member(String),
    /// Any object member whose name is not one of these (`additionalProperties` and
    /// `unevaluatedProperties` beside `properties`; `patternProperties`, conservatively).
    MemberExcept(Vec<String>),
    /// A member name, as a string value (`propertyNames`).
    Name,
}

impl Letter {
    /// Whether some child position is read by both letters: the definition [`Letters`] indexes
    /// (held to it by a property test).
    #[cfg(test)]
    fn overlaps(&self, other: &Letter) -> bool {
        use Letter::*;
        match (self, other) {
            (Index(a), Index(b)) => a == b,
            (Index(i), From(n)) | (From(n), Index(i)) => i >= n,
            (From(_), From(_)) => true,
            (Member(a), Member(b)) => a == b,
            (Member(name), MemberExcept(except)) | (MemberExcept(except), Member(name)) => !except.contains(name),
            (MemberExcept(_), MemberExcept(_)) => true,
            (Name, Name) => true,
            _ => false,
        }
    }
}

/// How a subschema is reached from the one that holds it.
enum How {
    /// At the same value (`allOf`, `not`, `if`, …).
    InPlace,
    /// At a child position.
    Descent(Letter),
    /// Not applied from there (`$defs`): registered for references to reach.
    Registered,
}

/// The descents of one evaluation: (edge, how many in-place paths reach it), by edge.
type Descents = Vec<(usize, u64)>;

/// A descent of the automaton over classes: (edge, how many in-place paths reach it, the class
/// it leads to).
type Transition = (usize, u64, usize);

/// The analysis's own step counter, held to [`ANALYSIS_CAP`].
#[derive(Default)]
struct Work_ {
    spent: usize,
}

impl Work_ {
    fn spend(&mut self, steps: usize) -> std::result::Result<(), String> {
        self.spent = self.spent.saturating_add(steps);
        if self.spent > ANALYSIS_CAP {
            return Err("the schema is too tangled for its work to be bounded".to_owned());
        }
        Ok(())
    }
}

/// The letters of a list of descents, indexed so that the ones overlapping a letter are found
/// without comparing every pair: array positions and member names by key, the rest listed.
#[derive(Default)]
struct Letters<'g> {
    at_index: HashMap<usize, Vec<usize>>,
    from: Vec<(usize, usize)>,
    // Owned names: the same map type as the graph's anchors (one instantiation fewer).
    member: HashMap<String, Vec<usize>>,
    member_except: Vec<(usize, &'g [String])>,
    name: Vec<usize>,
}

impl<'g> Letters<'g> {
    /// The index of `letters`; a descent is named by its position among them.
    fn of(letters: &mut dyn Iterator<Item = &'g Letter>) -> Self {
        let mut index = Letters::default();
        for (j, letter) in letters.enumerate() {
            match letter {
                Letter::Index(i) => index.at_index.entry(*i).or_default().push(j),
                Letter::From(n) => index.from.push((j, *n)),
                Letter::Member(k) => index.member.entry(k.clone()).or_default().push(j),
                Letter::MemberExcept(except) => index.member_except.push((j, except.as_slice())),
                Letter::Name => index.name.push(j),
            }
        }
        index
    }

    /// Calls `found` with every descent whose letter overlaps `letter`; each step is work.
    fn overlapping(
        &self,
        letter: &Letter,
        work: &mut Work_,
        mut found: impl FnMut(usize),
    ) -> std::result::Result<(), String> {
        let mut each = |j: usize, work: &mut Work_| -> std::result::Result<(), String> {
            work.spend(1)?;
            found(j);
            Ok(())
        };
        match letter {
            Letter::Index(i) => {
                for &j in self.at_index.get(i).into_iter().flatten() {
                    each(j, work)?;
                }
                for &(j, n) in &self.from {
                    work.spend(1)?;
                    if *i >= n {
                        each(j, work)?;
                    }
                }
            }
            Letter::From(n) => {
                for (i, js) in &self.at_index {
                    work.spend(1)?;
                    if i >= n {
                        for &j in js {
                            each(j, work)?;
                        }
                    }
                }
                for &(j, _) in &self.from {
                    each(j, work)?;
                }
            }
            Letter::Member(k) => {
                for &j in self.member.get(k.as_str()).into_iter().flatten() {
                    each(j, work)?;
                }
                for &(j, except) in &self.member_except {
                    work.spend(1)?;
                    if !except.contains(k) {
                        each(j, work)?;
                    }
                }
            }
            Letter::MemberExcept(except) => {
                for (k, js) in &self.member {
                    work.spend(1)?;
                    if !except.iter().any(|e| e == k) {
                        for &j in js {
                            each(j, work)?;
                        }
                    }
                }
                for &(j, _) in &self.member_except {
                    each(j, work)?;
                }
            }
            Letter::Name => {
                for &j in &self.name {
                    each(j, work)?;
                }
            }
        }
        Ok(())
    }

    /// The most, over the child positions these letters read, of the summed `weight` of the
    /// descents that read that position: each named index and member, an index past them all,
    /// a member named none of them, a member name.
    fn most_at_one_position(
        &self,
        weight: impl Fn(usize) -> u64,
        work: &mut Work_,
    ) -> std::result::Result<u64, String> {
        let sum = |js: &mut dyn Iterator<Item = usize>| js.fold(0u64, |sum, j| sum.saturating_add(weight(j)));
        let mut most = 0u64;
        for (i, js) in &self.at_index {
            work.spend(js.len() + self.from.len())?;
            let here = sum(&mut js.iter().copied()).saturating_add(sum(&mut self
                .from
                .iter()
                .filter(|(_, n)| i >= n)
                .map(|(j, _)| *j)));
            most = most.max(here);
        }
        work.spend(self.from.len())?;
        most = most.max(sum(&mut self.from.iter().map(|(j, _)| *j)));
        for (k, js) in &self.member {
            work.spend(js.len() + self.member_except.len())?;
            let here = sum(&mut js.iter().copied()).saturating_add(sum(&mut self
                .member_except
                .iter()
                .filter(|(_, except)| !except.iter().any(|e| e == k))
                .map(|(j, _)| *j)));
            most = most.max(here);
        }
        work.spend(self.member_except.len() + self.name.len())?;
        most = most.max(sum(&mut self.member_except.iter().map(|(j, _)| *j)));
        most = most.max(sum(&mut self.name.iter().copied()));
        Ok(most)
    }
}

/// Where an in-place reference leads.
enum Target {
    Node(usize),
    /// A dynamic reference: its static target and every subschema with its dynamic anchor.
    Several(Vec<usize>),
    /// A reference this reading does not resolve exactly (a URI it cannot join, an anchor it
    /// did not find): any subschema, conservatively.
    Anywhere,
}

/// A reference of a subschema, resolved after the walk.
enum Reference {
    Static(String),
    /// `$dynamicRef` (2020-12).
    Dynamic(String),
    /// `$recursiveRef` (2019-09).
    Recursive,
}

#[derive(Default)]
struct Node {
    pointer: String,
    /// Whether a validator spends a frame of its own here: a schema that is nothing but a
    /// `$ref` passes straight on (measured, `crate::stack`).
    frame: bool,
    /// The base URI in effect ("" when no identifier sets one).
    base: String,
    in_place: Vec<Target>,
    /// Indices into `Graph::edges`.
    descents: Vec<usize>,
}

struct Edge {
    to: usize,
    letter: Letter,
}

struct Graph<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    by_pointer: HashMap<String, usize>,
    /// Plain-name anchors (`$anchor`, `$dynamicAnchor`, drafts 4–7 `#name` identifiers) by the
    /// base URI of their resource and their name: one name may stand in several resources.
    anchors: HashMap<String, Vec<usize>>,
    /// `$dynamicAnchor`s by name, in every resource: the candidates of a dynamic reference (an
    /// `$anchor` of the same name is not one).
    dynamic_anchors: HashMap<String, Vec<usize>>,
    /// Nodes with `"$recursiveAnchor": true`.
    recursive_anchors: Vec<usize>,
    /// Resources by their base URI: the nodes whose identifier sets one.
    resources: HashMap<String, usize>,
    /// References still to resolve: (node, its in-place slot, the reference).
    pending: Vec<(usize, usize, Reference)>,
}

fn refused(path: &str, why: String) -> Error {
    Error::new(ErrorCode::LimitExceeded, path, format!("validation work: {why}"))
}

/// What the analysis found out about a schema it accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    /// The most schema levels a validator recurses through for one level of a value: the
    /// longest chain of in-place applicators (a schema that is only a `$ref` not counted),
    /// plus the keyword that descends. The stack a
    /// validation needs grows with it ([`crate::stack`]).
    pub frames_per_level: usize,
}

/// Refuses, with `limit-exceeded` at `path` (the schema's own), a schema whose validation work
/// this rule cannot bound (see the module's documentation). `schema` has been found a valid
/// schema whose references stay inside it.
pub fn check(schema: &Value, path: &str) -> Result<Work> {
    if !schema.is_object() {
        return Ok(Work { frames_per_level: 1 });
    }
    let mut graph = Graph {
        root: schema,
        nodes: Vec::new(),
        edges: Vec::new(),
        recursive_anchors: Vec::new(),
        resources: HashMap::new(),
        pending: Vec::new(),
        by_pointer: HashMap::new(),
        anchors: HashMap::new(),
        dynamic_anchors: HashMap::new(),
    };
    graph.add(schema, String::new(), String::new());
    // References are resolved after the walk, so that every anchor and identifier is known; a
    // pointer into a place the walk did not register (a keyword it does not know) registers it
    // then, and its own references join the queue.
    while let Some((node, slot, reference)) = graph.pending.pop() {
        let target = graph.resolve(node, &reference);
        graph.nodes[node].in_place[slot] = target;
    }
    let mut work = Work_::default();
    let (closures, chain) = graph.closures(&mut work).map_err(|why| refused(path, why))?;
    let (class_of, transitions, first_node) = graph.classes(&closures);
    graph.ambiguity(&transitions, &first_node, &mut work).map_err(|why| refused(path, why))?;
    graph.runs(&transitions, class_of[0], &mut work).map_err(|why| refused(path, why))?;
    Ok(Work { frames_per_level: chain.saturating_add(1) })
}

impl<'s> Graph<'s> {
    /// Registers `schema` (at `pointer`) and every subschema below it; returns its node, or
    /// `None` for a boolean schema (which applies nothing further).
    fn add(&mut self, schema: &'s Value, pointer: String, base: String) -> Option<usize> {
        let Value::Object(_) = schema else { return None };
        if let Some(&id) = self.by_pointer.get(&pointer) {
            return Some(id);
        }
        // An explicit stack: a schema is as deep as its input's limits allow.
        let first = self.register(pointer.clone());
        let mut stack = vec![(schema, first, base)];
        while let Some((value, id, base)) = stack.pop() {
            let Value::Object(map) = value else { continue };
            let pointer = self.nodes[id].pointer.clone();
            let identifier = ["$id", "id"].iter().find_map(|name| map.get(*name).and_then(Value::as_str));
            let base = match identifier.map(|i| i.split('#').next().unwrap_or_default()) {
                Some(uri) if !uri.is_empty() => {
                    let joined = join(&base, uri);
                    self.resources.entry(joined.clone()).or_insert(id);
                    joined
                }
                _ => base,
            };
            if id == 0 {
                self.resources.entry(base.clone()).or_insert(0);
            }
            self.nodes[id].base = base.clone();
            self.nodes[id].frame = !(map.len() == 1 && map.contains_key("$ref"));
            if map.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
                self.recursive_anchors.push(id);
            }
            for name in ["$anchor", "$dynamicAnchor"] {
                if let Some(Value::String(anchor)) = map.get(name) {
                    self.anchors.entry(anchor_key(&base, anchor)).or_default().push(id);
                    if name == "$dynamicAnchor" {
                        self.dynamic_anchors.entry(anchor.clone()).or_default().push(id);
                    }
                }
            }
            // Drafts 4 to 7 name an anchor with a fragment-only identifier.
            for name in ["$id", "id"] {
                if let Some(anchor) = map.get(name).and_then(Value::as_str).and_then(|s| s.strip_prefix('#')) {
                    self.anchors.entry(anchor_key(&base, anchor)).or_default().push(id);
                }
            }
            let references = [
                map.get("$ref").and_then(Value::as_str).map(|r| Reference::Static(r.to_owned())),
                map.get("$dynamicRef").and_then(Value::as_str).map(|r| Reference::Dynamic(r.to_owned())),
                map.get("$recursiveRef").map(|_| Reference::Recursive),
            ];
            for reference in references.into_iter().flatten() {
                let slot = self.nodes[id].in_place.len();
                self.nodes[id].in_place.push(Target::Anywhere);
                self.pending.push((id, slot, reference));
            }
            let mut child = |graph: &mut Self, keyword: &str, sub: Option<&str>, schema: &'s Value, how: How| {
                let mut at = pointer_push(&pointer, keyword);
                if let Some(token) = sub {
                    at = pointer_push(&at, token);
                }
                if !schema.is_object() {
                    return;
                }
                let existing = graph.by_pointer.get(&at).copied();
                let to = match existing {
                    Some(to) => to,
                    None => {
                        let to = graph.register(at);
                        stack.push((schema, to, base.clone()));
                        to
                    }
                };
                match how {
                    How::Registered => {}
                    How::InPlace => graph.nodes[id].in_place.push(Target::Node(to)),
                    How::Descent(letter) => {
                        graph.edges.push(Edge { to, letter });
                        let edge = graph.edges.len() - 1;
                        graph.nodes[id].descents.push(edge);
                    }
                }
            };
            let named: Vec<String> = match map.get("properties") {
                Some(Value::Object(properties)) => properties.keys().cloned().collect(),
                _ => Vec::new(),
            };
            let tuple_len = |key: &str| map.get(key).and_then(Value::as_array).map_or(0, Vec::len);
            for (keyword, value) in map {
                let keyword = keyword.as_str();
                // A keyword of one subschema: whether it stays at the value or descends.
                let one = match keyword {
                    "not" | "if" | "then" | "else" => Some(How::InPlace),
                    "items" if !value.is_array() => Some(How::Descent(Letter::From(tuple_len("prefixItems")))),
                    "additionalItems" => Some(How::Descent(Letter::From(tuple_len("items")))),
                    "contains" | "unevaluatedItems" => Some(How::Descent(Letter::From(0))),
                    "additionalProperties" | "unevaluatedProperties" => {
                        Some(How::Descent(Letter::MemberExcept(named.clone())))
                    }
                    "propertyNames" => Some(How::Descent(Letter::Name)),
                    _ => None,
                };
                if let Some(how) = one {
                    child(self, keyword, None, value, how);
                    continue;
                }
                // Keywords of an array or a map of subschemas (anything else there is skipped).
                match (keyword, value) {
                    ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(items)) => {
                        for (i, s) in items.iter().enumerate() {
                            let how = match keyword {
                                "prefixItems" | "items" => How::Descent(Letter::Index(i)),
                                _ => How::InPlace,
                            };
                            child(self, keyword, Some(&i.to_string()), s, how);
                        }
                    }
                    (
                        "dependentSchemas" | "dependencies" | "$defs" | "definitions" | "properties"
                        | "patternProperties",
                        Value::Object(members),
                    ) => {
                        for (k, s) in members {
                            let how = match keyword {
                                "properties" => How::Descent(Letter::Member(k.clone())),
                                "patternProperties" => How::Descent(Letter::MemberExcept(Vec::new())),
                                "$defs" | "definitions" => How::Registered,
                                _ => How::InPlace,
                            };
                            child(self, keyword, Some(k), s, how);
                        }
                    }
                    _ => {}
                }
            }
        }
        Some(first)
    }

    fn register(&mut self, pointer: String) -> usize {
        self.nodes.push(Node { pointer: pointer.clone(), ..Node::default() });
        let id = self.nodes.len() - 1;
        self.by_pointer.insert(pointer, id);
        id
    }

    /// Where a reference of `node` leads: a resource by its URI (joined to the node's base),
    /// then a JSON Pointer or a plain-name anchor inside it; for a dynamic reference, also every
    /// subschema its dynamic resolution may pick. What this reading cannot follow exactly may
    /// lead anywhere.
    fn resolve(&mut self, node: usize, reference: &Reference) -> Target {
        match reference {
            Reference::Static(r) => self.resolve_static(node, r),
            Reference::Recursive => {
                let mut targets = vec![0];
                targets.extend(self.recursive_anchors.iter().copied());
                heap_sort(&mut targets);
                targets.dedup();
                Target::Several(targets)
            }
            Reference::Dynamic(r) => match self.resolve_static(node, r) {
                Target::Node(first) => {
                    let name = r.rsplit_once('#').map_or("", |(_, name)| name);
                    let mut targets = vec![first];
                    targets.extend(self.dynamic_anchors.get(name).into_iter().flatten().copied());
                    // One evaluation, wherever it resolves: each candidate once.
                    heap_sort(&mut targets);
                    targets.dedup();
                    Target::Several(targets)
                }
                other => other,
            },
        }
    }

    fn resolve_static(&mut self, node: usize, reference: &str) -> Target {
        let (uri, fragment) = match reference.split_once('#') {
            Some((uri, fragment)) => (uri, fragment),
            None => (reference, ""),
        };
        let base = &self.nodes[node].base;
        let resource = if uri.is_empty() {
            self.resources.get(base.as_str()).copied().unwrap_or(0)
        } else {
            let joined = join(base, uri);
            match self.resources.get(&joined) {
                Some(&resource) => resource,
                // A dialect's own meta-schema (bundled by the validators, never fetched): fixed
                // text whose evaluation is bounded, so it adds no work this rule must count.
                None if is_meta_schema(&joined) => return Target::Several(Vec::new()),
                None => return Target::Anywhere,
            }
        };
        if fragment.is_empty() {
            return Target::Node(resource);
        }
        let Some(decoded) = percent_decode(fragment) else { return Target::Anywhere };
        if decoded.starts_with('/') {
            let full = format!("{}{}", self.nodes[resource].pointer, decoded);
            let Some((value, canonical)) = follow(self.root, &full) else { return Target::Anywhere };
            let base = self.nodes[resource].base.clone();
            return match self.add(value, canonical, base) {
                Some(id) => Target::Node(id),
                // A boolean schema applies nothing further: no work beyond its own verdict.
                None if value.is_boolean() => Target::Several(Vec::new()),
                None => Target::Anywhere,
            };
        }
        let key = anchor_key(&self.nodes[resource].base, &decoded);
        match self.anchors.get(&key).map(Vec::as_slice) {
            Some([one]) => Target::Node(*one),
            _ => Target::Anywhere,
        }
    }

    /// For each node, the descents one evaluation there makes, after following every in-place
    /// applicator: (edge, how many in-place paths reach it), shared between nodes that make the
    /// same ones (a schema that is only a `$ref` shares its target's); and the longest chain of
    /// in-place applicators. Errs on an in-place cycle, on too many in-place visits, or past
    /// the analysis cap.
    #[allow(clippy::type_complexity)]
    fn closures(&self, work: &mut Work_) -> std::result::Result<(Vec<Rc<Descents>>, usize), String> {
        let n = self.nodes.len();
        let mut closure: Vec<Option<Rc<Descents>>> = vec![None; n];
        let mut visits: Vec<u64> = vec![0; n];
        let mut chain: Vec<usize> = vec![0; n];
        let mut on_path = vec![false; n];
        // The counts being merged, by edge (every count is at least 1, so 0 is an edge not yet
        // met), and the edges met: reset after each merge.
        let mut sum: Vec<u64> = vec![0; self.edges.len()];
        let mut met: Vec<usize> = Vec::new();
        for start in 0..n {
            if closure[start].is_some() {
                continue;
            }
            // Iterative depth-first post-order over in-place edges; each frame keeps its
            // node's targets and how many it has entered.
            let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(start, self.targets(start), 0)];
            work.spend(stack[0].1.len())?;
            on_path[start] = true;
            while let Some((id, targets, next)) = stack.last_mut() {
                let id = *id;
                if let Some(&to) = targets.get(*next) {
                    *next += 1;
                    if on_path[to] {
                        return Err(format!(
                            "the subschema at {:?} applies {:?} again to the same value, without end",
                            self.nodes[to].pointer, self.nodes[id].pointer
                        ));
                    }
                    if closure[to].is_none() {
                        on_path[to] = true;
                        let targets = self.targets(to);
                        work.spend(targets.len())?;
                        stack.push((to, targets, 0));
                    }
                    continue;
                }
                // All in-place successors done: merge their closures.
                let own = &self.nodes[id].descents;
                let mut visited = 1u64;
                let mut longest = 0usize;
                for &to in targets.iter() {
                    visited = visited.saturating_add(visits[to]);
                    longest = longest.max(chain[to]);
                }
                if visited > IN_PLACE_CAP {
                    return Err(format!(
                        "one evaluation of the subschema at {:?} visits more than {IN_PLACE_CAP} subschemas at the same value",
                        self.nodes[id].pointer
                    ));
                }
                let merged = match (own.is_empty(), targets.as_slice()) {
                    (true, []) => Rc::new(Vec::new()),
                    (true, [only]) => Rc::clone(closure[*only].as_ref().expect("done")),
                    _ => {
                        met.clear();
                        for &edge in own {
                            sum[edge] = 1;
                            met.push(edge);
                        }
                        for &to in targets.iter() {
                            let theirs = closure[to].as_ref().expect("done");
                            work.spend(theirs.len())?;
                            for &(edge, count) in theirs.iter() {
                                if sum[edge] == 0 {
                                    met.push(edge);
                                }
                                sum[edge] = sum[edge].saturating_add(count);
                            }
                        }
                        heap_sort(&mut met);
                        Rc::new(met.iter().map(|&edge| (edge, std::mem::take(&mut sum[edge]))).collect())
                    }
                };
                visits[id] = visited;
                chain[id] = longest + usize::from(self.nodes[id].frame);
                closure[id] = Some(merged);
                on_path[id] = false;
                stack.pop();
            }
        }
        // Per level of a value: the chains that start where a keyword descends (the root's
        // own chain is spent once, not per level).
        let longest = self.edges.iter().map(|e| chain[e.to]).max().unwrap_or(0);
        Ok((closure.into_iter().map(|c| c.unwrap_or_default()).collect(), longest))
    }

    /// The nodes an in-place applicator of `id` leads to (`Anywhere` is every node).
    fn targets(&self, id: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for target in &self.nodes[id].in_place {
            match target {
                Target::Node(to) => out.push(*to),
                Target::Several(targets) => out.extend(targets.iter().copied()),
                Target::Anywhere => out.extend(0..self.nodes.len()),
            }
        }
        out
    }

    /// The automaton over classes of nodes that make the same descents: the class of each
    /// node, and each class's descents as (letter's edge, count, target class).
    #[allow(clippy::type_complexity)]
    fn classes(&self, closures: &[Rc<Descents>]) -> (Vec<usize>, Vec<Vec<Transition>>, Vec<usize>) {
        let mut class_of = Vec::with_capacity(closures.len());
        let mut by_content: HashMap<&Descents, usize> = HashMap::new();
        let mut first_node = Vec::new();
        for (node, closure) in closures.iter().enumerate() {
            let next = by_content.len();
            let class = *by_content.entry(closure.as_ref()).or_insert(next);
            if class == first_node.len() {
                first_node.push(node);
            }
            class_of.push(class);
        }
        let transitions = first_node
            .iter()
            .map(|&node| closures[node].iter().map(|&(e, count)| (e, count, class_of[self.edges[e].to])).collect())
            .collect();
        (class_of, transitions, first_node)
    }

    /// Errs when some subschema has two different runs back to itself over the same positions.
    fn ambiguity(
        &self,
        transitions: &[Vec<Transition>],
        first_node: &[usize],
        work: &mut Work_,
    ) -> std::result::Result<(), String> {
        let n = transitions.len();
        let component = strongly_connected(n, &|v| transitions[v].iter().map(|t| t.2).collect());
        // Components in the order of their first class, so that the answer never varies.
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (v, &c) in component.iter().enumerate() {
            members[c].push(v);
        }
        // (Each component once, when its first class comes up: no sort.)
        let mut index = vec![0usize; n];
        for first in 0..n {
            let c = component[first];
            let classes = &members[c];
            if classes[0] != first {
                continue;
            }
            // The descents of each class that stay inside the component.
            let inside: Vec<Vec<Transition>> = classes
                .iter()
                .map(|&v| transitions[v].iter().copied().filter(|t| component[t.2] == c).collect())
                .collect();
            // A component is a cycle only when it has an edge inside it.
            if inside.iter().all(Vec::is_empty) {
                continue;
            }
            // A descent reached along two in-place paths, inside a cycle: two runs already.
            if let Some(i) = inside.iter().position(|edges| edges.iter().any(|t| t.1 > 1)) {
                return Err(self.branching(first_node[classes[i]]));
            }
            // The product of the component with itself, over descents whose letters overlap;
            // an edge is split when the two runs take different descents.
            for (i, &v) in classes.iter().enumerate() {
                index[v] = i;
            }
            let k = classes.len();
            // The product holds k² pairs: past a thousand classes in one cycle, too tangled.
            if k > 1_000 {
                return Err("the schema is too tangled for its work to be bounded".to_owned());
            }
            work.spend(k.saturating_mul(k))?;
            let letters: Vec<Letters> =
                inside.iter().map(|edges| Letters::of(&mut edges.iter().map(|t| &self.edges[t.0].letter))).collect();
            let mut product: Vec<Vec<(usize, bool)>> = Vec::with_capacity(k * k);
            for p in 0..k * k {
                let (a, b) = (p / k, p % k);
                let mut out = Vec::new();
                for &(e1, _, to1) in &inside[a] {
                    letters[b].overlapping(&self.edges[e1].letter, work, |j| {
                        let (e2, _, to2) = inside[b][j];
                        out.push((index[to1] * k + index[to2], e1 != e2));
                    })?;
                }
                product.push(out);
            }
            let pair_component = strongly_connected(k * k, &|p| product[p].iter().map(|&(to, _)| to).collect());
            // A product component holds two different runs when it holds a pair of different
            // classes, or a split edge inside it.
            let mut split = vec![false; k * k];
            for (p, edges) in product.iter().enumerate() {
                let pc = pair_component[p];
                if p / k != p % k || edges.iter().any(|&(to, split)| split && pair_component[to] == pc) {
                    split[pc] = true;
                }
            }
            if let Some(i) = (0..k).find(|&i| split[pair_component[i * k + i]]) {
                return Err(self.branching(first_node[classes[i]]));
            }
        }
        Ok(())
    }

    /// Errs when more than [`RUNS_CAP`] runs from the root can reach one position of a value
    /// of at most [`MAX_DEPTH_CEILING`] levels. `runs[c]` bounds, after `d` rounds, the runs
    /// from class `c` over any `d` positions: the most, over the child positions its descents
    /// read, of the runs of every descent that reads that position. A schema without such
    /// branching reaches its fixed point within its own nesting.
    fn runs(&self, transitions: &[Vec<Transition>], root: usize, work: &mut Work_) -> std::result::Result<(), String> {
        let letters: Vec<Letters> =
            transitions.iter().map(|t| Letters::of(&mut t.iter().map(|d| &self.edges[d.0].letter))).collect();
        let mut runs = vec![1u64; transitions.len()];
        for _ in 0..MAX_DEPTH_CEILING {
            let mut next = Vec::with_capacity(runs.len());
            for (c, descents) in transitions.iter().enumerate() {
                let weight = |j: usize| {
                    let (_, count, to) = descents[j];
                    count.saturating_mul(runs[to])
                };
                next.push(letters[c].most_at_one_position(weight, work)?.max(1));
            }
            if next[root] > RUNS_CAP {
                return Err(format!(
                    "more than {RUNS_CAP} evaluations of its subschemas can reach one position of a value (applicators \
                     that take the same child values into the same subschema, level after level)"
                ));
            }
            if next == runs {
                return Ok(());
            }
            runs = next;
        }
        Ok(())
    }

    fn branching(&self, node: usize) -> String {
        format!(
            "the subschema at {:?} can be evaluated on the same value along two different paths at every level \
             of nesting (two applicators take the same child values into the same recursive $ref), so the work \
             doubles with each level",
            self.nodes[node].pointer
        )
    }
}

/// The value at JSON Pointer `pointer` (which starts with `/`) in `root`, read as serde_json's
/// `Value::pointer` reads it, and the pointer as this walk writes it (tokens escaped the same
/// way). Written out rather than `pointer` and `str::replace` for the wasm's size.
fn follow<'s>(root: &'s Value, pointer: &str) -> Option<(&'s Value, String)> {
    let mut at = root;
    let mut canonical = String::new();
    for token in pointer.split('/').skip(1) {
        let token = decode_token(token);
        at = match at {
            Value::Object(map) => map.get(&token)?,
            Value::Array(list) => list.get(crate::schema::parse_index(&token)?)?,
            _ => return None,
        };
        canonical = pointer_push(&canonical, &token);
    }
    Some((at, canonical))
}

/// A JSON Pointer token decoded as `token.replace("~1", "/").replace("~0", "~")` decodes it
/// (serde_json's reading: any other `~` is itself), in one pass: the two never overlap.
fn decode_token(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('~', Some('1')) => {
                chars.next();
                out.push('/');
            }
            ('~', Some('0')) => {
                chars.next();
                out.push('~');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The key of an anchor in [`Graph::anchors`]: its resource's base URI, `#`, its name (a base
/// never holds a `#`, so no two pairs share a key).
fn anchor_key(base: &str, name: &str) -> String {
    format!("{base}#{name}")
}

/// Sorts `v` ascending, in place, in O(n log n) (heapsort). One small routine for the element
/// types the core sorts, where `sort_unstable` adds a large instantiation for each (the wasm's
/// size); equal elements are indistinguishable wherever it is used, so the order is the one
/// `sort_unstable` gives.
#[inline(never)]
pub(crate) fn heap_sort<T: Copy + Ord>(v: &mut [T]) {
    fn sift<T: Copy + Ord>(v: &mut [T], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && v[child] < v[child + 1] {
                child += 1;
            }
            if v[root] >= v[child] {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for start in (0..n / 2).rev() {
        sift(v, start, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end);
    }
}

/// `reference` (a URI without its fragment) joined to `base`, without dot-segment removal: a
/// form this does not match leaves the reference unresolved, which is the conservative side.
fn join(base: &str, reference: &str) -> String {
    let has_scheme = reference.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if has_scheme || base.is_empty() {
        reference.to_owned()
    } else if let Some(path) = reference.strip_prefix('/') {
        // The base's scheme and authority, then the absolute path.
        let authority_end = base.find("://").map_or(0, |i| base[i + 3..].find('/').map_or(base.len(), |j| i + 3 + j));
        format!("{}/{}", &base[..authority_end], path)
    } else {
        let directory = base.rfind('/').map_or("", |i| &base[..=i]);
        format!("{directory}{reference}")
    }
}

/// Whether `uri` names a JSON Schema dialect's meta-schema (or, for 2019-09 and 2020-12, one of
/// its vocabulary meta-schemas), with or without an empty fragment.
fn is_meta_schema(uri: &str) -> bool {
    let uri = uri.strip_suffix('#').unwrap_or(uri);
    matches!(
        uri,
        "http://json-schema.org/draft-04/schema"
            | "http://json-schema.org/draft-06/schema"
            | "http://json-schema.org/draft-07/schema"
            | "https://json-schema.org/draft/2019-09/schema"
            | "https://json-schema.org/draft/2020-12/schema"
    ) || ["https://json-schema.org/draft/2019-09/meta/", "https://json-schema.org/draft/2020-12/meta/"]
        .iter()
        .any(|prefix| uri.strip_prefix(prefix).is_some_and(|name| !name.is_empty() && !name.contains('/')))
}

/// A URI fragment's percent-encoding decoded; `None` when not UTF-8 or malformed.
pub(crate) fn percent_decode(fragment: &str) -> Option<String> {
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Tarjan's strongly connected components, iterative: the component of each vertex.
fn strongly_connected(n: usize, successors: &dyn Fn(usize) -> Vec<usize>) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let mut stack = Vec::new();
    let mut next_index = 0;
    let mut next_component = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        let mut call: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        call.push((root, successors(root), 0));
        while let Some((v, succ, i)) = call.last_mut() {
            let v = *v;
            if *i < succ.len() {
                let w = succ[*i];
                *i += 1;
                if index[w] == UNSEEN {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, successors(w), 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some((parent, _, _)) = call.last() {
                low[*parent] = low[*parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = next_component;
                    if w == v {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::{check, decode_token, follow, heap_sort, Letter, Letters, Work_};
    use proptest::prelude::*;
    use serde_json::json;

    fn arb_letter() -> impl Strategy<Value = Letter> {
        let name = prop::sample::select(vec!["a", "b", "c"]).prop_map(str::to_owned);
        prop_oneof![
            (0usize..4).prop_map(Letter::Index),
            (0usize..4).prop_map(Letter::From),
            name.clone().prop_map(Letter::Member),
            prop::collection::vec(name, 0..3).prop_map(Letter::MemberExcept),
            Just(Letter::Name),
        ]
    }

    proptest! {
        // The pointer walk written out for the wasm's size reads as serde_json's does.
        #[test]
        fn follow_reads_as_serde_json_pointer(
            token in "[~01/a]{0,6}",
            pointer in prop::collection::vec("[~01a]{0,4}", 0..4),
        ) {
            prop_assert_eq!(decode_token(&token), token.replace("~1", "/").replace("~0", "~"));
            let root = json!({"a": {"~": [true, {"0": 1}], "/": {"a~1": false}}, "0": ["x"], "~1": {"01": 2}, "": 3});
            let pointer: String = pointer.iter().map(|t| format!("/{t}")).collect();
            prop_assert_eq!(follow(&root, &pointer).map(|(value, _)| value), root.pointer(&pointer));
        }

        // The sort the core uses in place of `sort_unstable` (for the wasm's size) orders alike.
        #[test]
        fn heap_sort_orders_as_sort_unstable(
            mut pairs in prop::collection::vec((0usize..20, 0u64..3), 0..40),
            names in prop::collection::vec("[ab]{0,3}", 0..20),
        ) {
            let mut expected = pairs.clone();
            expected.sort_unstable();
            heap_sort(&mut pairs);
            prop_assert_eq!(pairs, expected);
            let mut expected = names.clone();
            expected.sort_unstable();
            let mut refs: Vec<&str> = names.iter().map(String::as_str).collect();
            heap_sort(&mut refs);
            prop_assert_eq!(refs, expected.iter().map(String::as_str).collect::<Vec<_>>());
        }

        // The index finds exactly the letters that overlap, as the pairwise definition says;
        // and the most at one position is the most over every position a letter names (or a
        // fresh one), summed over the letters that read it.
        #[test]
        fn the_letter_index_agrees_with_overlaps(
            letters in prop::collection::vec(arb_letter(), 0..8),
            probe in arb_letter(),
        ) {
            let index = Letters::of(&mut letters.iter());
            let mut work = Work_::default();
            let mut found = Vec::new();
            index.overlapping(&probe, &mut work, |j| found.push(j)).unwrap();
            found.sort_unstable();
            let expected: Vec<usize> = (0..letters.len()).filter(|&j| letters[j].overlaps(&probe)).collect();
            prop_assert_eq!(found, expected);
            let weight = |j: usize| j as u64 + 1;
            let most = index.most_at_one_position(weight, &mut work).unwrap();
            // Every position: indices 0..5 (past every letter's), names a, b, c and a fresh one.
            let positions = (0..5usize)
                .map(Letter::Index)
                .chain(["a", "b", "c", "zz"].iter().map(|k| Letter::Member((*k).to_owned())))
                .chain(std::iter::once(Letter::Name));
            let brute = positions
                .map(|p| (0..letters.len()).filter(|&j| letters[j].overlaps(&p)).map(weight).sum::<u64>())
                .max()
                .unwrap_or(0);
            prop_assert_eq!(most, brute);
        }
    }

    #[test]
    fn frames_per_level_counts_the_longest_in_place_chain() {
        let frames = |schema| check(&schema, "").unwrap().frames_per_level;
        assert_eq!(frames(json!(true)), 1);
        assert_eq!(frames(json!({"type": "object"})), 1);
        // items → {$ref} (passed straight on) → root → allOf item → allOf item: 3 in place,
        // plus the descent.
        assert_eq!(frames(json!({"allOf":[{"allOf":[{"items":{"$ref":"#"}}]}]})), 4);
        assert_eq!(frames(json!({"type": "object", "properties": {"a": {"$ref": "#"}}})), 2);
    }

    fn refused(schema: serde_json::Value) -> bool {
        check(&schema, "/s").is_err()
    }

    /// References the bound once read as leading anywhere (found by the JSON-Schema-Test-Suite,
    /// tests/schema-suite): a boolean target, one anchor name in two resources, a dialect's
    /// meta-schema. Each is followed exactly now; a real cycle through them is still refused.
    #[test]
    fn exact_references_are_followed() {
        for accepted in [
            json!({"properties": {"a": {"$ref": "#/$defs/b"}}, "$defs": {"b": true}}),
            json!({"properties": {"a": {"$ref": "#/$defs/b"}}, "$defs": {"b": false}}),
            json!({"$id": "https://example.com/r", "properties": {"v": {"$ref": "child1#x"}},
                   "$defs": {"A": {"$id": "child1", "allOf": [{"$id": "child2", "$anchor": "x"}, {"$anchor": "x"}]}}}),
            json!({"properties": {"s": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}}),
            json!({"$ref": "https://json-schema.org/draft/2020-12/meta/validation"}),
            json!({"$ref": "http://json-schema.org/draft-07/schema#"}),
        ] {
            assert!(check(&accepted, "").is_ok(), "{accepted}");
        }
        // A resource of the schema's own that takes a meta-schema's URI is the schema's: a
        // cycle through it counts.
        assert!(refused(
            json!({"$defs": {"m": {"$id": "https://json-schema.org/draft/2020-12/schema", "$ref": "#"}}, "$ref": "https://json-schema.org/draft/2020-12/schema"})
        ));
        // An anchor defined twice in one resource is ambiguous: conservatively anywhere.
        assert!(refused(json!({"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}, "$ref": "#x"})));
    }

    #[test]
    fn branching_recursion_is_refused() {
        let example = json!({"$defs":{"n":{"type":"array","anyOf":[{"items":{"$ref":"#/$defs/n"}},{"items":{"$ref":"#/$defs/n"},"minItems":0}]}},"$ref":"#/$defs/n"});
        let e = check(&example, "/tools/0/outputVariants/1/schema").unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::LimitExceeded);
        assert_eq!(e.path(), "/tools/0/outputVariants/1/schema");
        // The same through allOf, through members, through a tuple element and `items` together.
        assert!(refused(json!({"allOf":[{"items":{"$ref":"#"}},{"items":{"$ref":"#"}}]})));
        assert!(refused(json!({"anyOf":[{"properties":{"a":{"$ref":"#"}}},{"additionalProperties":{"$ref":"#"}}]})));
        assert!(refused(json!({"anyOf":[{"prefixItems":[{"$ref":"#"}]},{"items":{"$ref":"#"}}]})));
        // Two paths to the same descent: `a` reached twice in place.
        assert!(refused(
            json!({"$defs":{"a":{"items":{"$ref":"#"}}},"anyOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]})
        ));
        // Mutual recursion through two definitions that branch.
        assert!(refused(
            json!({"$defs":{"a":{"oneOf":[{"items":{"$ref":"#/$defs/b"}},{"contains":{"$ref":"#/$defs/b"}}]},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})
        ));
    }

    #[test]
    fn evaluation_without_end_and_fan_out_are_refused() {
        assert!(refused(json!({"$ref":"#"})));
        assert!(refused(json!({"$id":"https://example.com/s","$ref":"s"})));
        assert!(refused(
            json!({"$id":"https://example.com/t","anyOf":[{"items":{"$ref":"t"}},{"items":{"$ref":"https://example.com/t"}}]})
        ));
        assert!(refused(
            json!({"$dynamicAnchor":"n","anyOf":[{"items":{"$dynamicRef":"#n"}},{"contains":{"$dynamicRef":"#n"}}]})
        ));
        assert!(refused(json!({"anyOf":[{"type":"string"},{"allOf":[{"$ref":"#"}]}]})));
        let mut defs = serde_json::Map::new();
        for i in 0..30 {
            defs.insert(
                format!("d{i}"),
                json!({"anyOf":[{"$ref":format!("#/$defs/d{}", i + 1)},{"$ref":format!("#/$defs/d{}", i + 1)}]}),
            );
        }
        defs.insert("d30".into(), json!({"type":"string"}));
        assert!(refused(json!({"$defs": defs, "$ref":"#/$defs/d0"})));
        // The same doubling through children, without recursion: 2^30 runs at depth 30.
        let mut defs = serde_json::Map::new();
        for i in 0..30 {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            defs.insert(format!("d{i}"), json!({"anyOf":[{"items": next.clone()},{"contains": next}]}));
        }
        defs.insert("d30".into(), json!({"type":"integer"}));
        assert!(refused(json!({"$defs": defs, "$ref":"#/$defs/d0"})));
        // Polynomial ambiguity, chained: each stage may hand over to the next at any depth.
        let mut defs = serde_json::Map::new();
        for i in 0..12 {
            let next = json!({"$ref": format!("#/$defs/s{}", i + 1)});
            defs.insert(
                format!("s{i}"),
                json!({"anyOf":[{"items": {"$ref": format!("#/$defs/s{i}")}},{"items": next}]}),
            );
        }
        defs.insert("s12".into(), json!({"type":"integer"}));
        assert!(refused(json!({"$defs": defs, "$ref":"#/$defs/s0"})));
    }

    #[test]
    fn ordinary_recursion_is_accepted() {
        // A tree whose items refer back once; a binary tree as a tuple; a linked list.
        assert!(!refused(json!({"type":"array","items":{"$ref":"#"}})));
        assert!(!refused(json!({"type":"array","prefixItems":[{"$ref":"#"},{"$ref":"#"}]})));
        assert!(!refused(
            json!({"$defs":{"node":{"type":"object","properties":{"value":{},"next":{"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}}}},"$ref":"#/$defs/node"})
        ));
        // Any JSON value: branches recurse through elements and members, never the same place.
        assert!(!refused(json!({"$defs":{"v":{"anyOf":[
            {"type":["string","number","boolean","null"]},
            {"type":"array","items":{"$ref":"#/$defs/v"}},
            {"type":"object","additionalProperties":{"$ref":"#/$defs/v"}}]}},"$ref":"#/$defs/v"})));
        // Named and other members recursing beside each other in one object.
        assert!(!refused(
            json!({"type":"object","properties":{"child":{"$ref":"#"}},"additionalProperties":{"$ref":"#"}})
        ));
        // Left and right subtrees, each once.
        assert!(!refused(json!({"properties":{"left":{"$ref":"#"},"right":{"$ref":"#"}}})));
        // Wide schemas stay cheap: 3,000 members that each recurse, and 3,000 tuple elements.
        let members: serde_json::Map<String, serde_json::Value> =
            (0..3000).map(|i| (format!("m{i}"), json!({"$ref": "#"}))).collect();
        assert!(!refused(json!({"type": "object", "properties": members})));
        let elements: Vec<serde_json::Value> = (0..3000).map(|_| json!({"$ref": "#"})).collect();
        assert!(!refused(json!({"type": "array", "prefixItems": elements})));
        // Non-recursive sharing: the same definition at the same place twice is fine.
        assert!(!refused(json!({"$defs":{"s":{"type":"string"}},"anyOf":[{"$ref":"#/$defs/s"},{"$ref":"#/$defs/s"}]})));
        // Anchors and identifiers resolve.
        assert!(!refused(json!({"$defs":{"n":{"$anchor":"node","items":{"$ref":"#node"}}},"$ref":"#node"})));
        assert!(!refused(json!({"$id":"https://example.com/tree","items":{"$ref":"tree"}})));
        assert!(!refused(
            json!({"$id":"https://example.com/a/root","$defs":{"t":{"$id":"tree","items":{"$ref":"/a/tree"}}},"$ref":"tree"})
        ));
        assert!(!refused(json!({"$dynamicAnchor":"node","items":{"$dynamicRef":"#node"}})));
    }
}
