//! `graph:file=PATH[,route=adaptive|minimal]`: any direct network from an edge-list file. Routed by
//! default with the topology-agnostic minimal adaptive routing and its up*/down* escape path on two
//! virtual channels (`updown.rs`); `route=minimal` offers every minimal next hop with hop-indexed
//! virtual channels instead, as many as the diameter (`table_routing.rs`). Not from a seed: the generic
//! counterpart of seed 002's irregular networks.
//!
//! File format (UTF-8 text, one item per line, `#` starts a comment, blank lines ignored):
//!
//! ```text
//! # a 4-switch ring with 2 nodes on every switch, 3 on switch 0
//! nodes_per_switch 2     # optional, default 1; must come before any link
//! nodes 0 3              # optional: switch 0 has 3 nodes
//! 0 1                    # a link between switches 0 and 1
//! 1 2
//! 2 3
//! 3 0
//! ```
//!
//! Switches are numbered from 0; their count is the largest id named plus one. Nodes are numbered switch
//! by switch (switch 0's first). A link named twice, a self-loop, a malformed line or a disconnected
//! graph is an error naming the line and column (or an unreachable switch).

use super::Topology;
use super::table_routing::{MAX_TABLE_SWITCHES, SwitchGraph, TableRouted, TableRouting};
use crate::error::{Error, Result};
use crate::spec::Entry;
use std::collections::BTreeMap;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "graph",
    keys: &["file", "route"],
    help: "any network from an edge-list file (`A B` links, `nodes_per_switch P`, `nodes S P`); route=adaptive (up*/down* escape, default) or minimal",
    build: |p| {
        let path = p
            .raw("file")
            .ok_or_else(|| p.invalid("needs file=PATH (an edge-list file)"))?;
        let routing = TableRouting::from_params(p, "adaptive")?;
        let text = crate::input::read_text(
            std::path::Path::new(path),
            "a graph file",
            crate::input::MAX_TEXT_BYTES,
        )?;
        Ok(Box::new(parse(path, &text, routing)?))
    },
};

/// Parses the file's text (`path` names it in errors and in the spec) into a topology routed by
/// `routing`.
pub fn parse(path: &str, text: &str, routing: TableRouting) -> Result<TableRouted> {
    let err = |line: usize, column: usize, message: String| Error::File {
        path: path.to_string(),
        line,
        column,
        message,
    };
    let mut default = 1u32;
    let mut per_switch: BTreeMap<u32, u32> = BTreeMap::new();
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut seen: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    let mut max_id: Option<u32> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let body = raw.split('#').next().unwrap_or("");
        // Tokens with their 1-based columns.
        let mut tokens = Vec::new();
        let mut start = None;
        for (c, ch) in body.char_indices().chain([(body.len(), ' ')]) {
            match (ch.is_whitespace(), start) {
                (false, None) => start = Some(c),
                (true, Some(s)) => {
                    tokens.push((&body[s..c], s + 1));
                    start = None;
                }
                _ => {}
            }
        }
        if tokens.is_empty() {
            continue;
        }
        let number = |(tok, col): (&str, usize), what: &str| -> Result<u32> {
            tok.parse::<u32>()
                .ok()
                .filter(|&v| what != "switch" || v < MAX_TABLE_SWITCHES)
                .ok_or_else(|| {
                    err(
                        line_no,
                        col,
                        format!(
                            "expected a {what} number{}, found `{tok}`",
                            if what == "switch" {
                                format!(" below {MAX_TABLE_SWITCHES}")
                            } else {
                                String::new()
                            }
                        ),
                    )
                })
        };
        let want = |n: usize| -> Result<()> {
            if tokens.len() == n {
                Ok(())
            } else {
                let (tok, col) = tokens.get(n).copied().unwrap_or(("", body.len() + 1));
                Err(err(
                    line_no,
                    col,
                    format!(
                        "expected `A B`, `nodes_per_switch P` or `nodes S P`{}",
                        if tok.is_empty() {
                            String::new()
                        } else {
                            format!("; unexpected `{tok}`")
                        }
                    ),
                ))
            }
        };
        match tokens[0].0 {
            "nodes_per_switch" => {
                want(2)?;
                if !edges.is_empty() {
                    return Err(err(
                        line_no,
                        tokens[0].1,
                        "nodes_per_switch must come before the links".to_string(),
                    ));
                }
                default = number(tokens[1], "node-count")?;
            }
            "nodes" => {
                want(3)?;
                let s = number(tokens[1], "switch")?;
                per_switch.insert(s, number(tokens[2], "node-count")?);
                max_id = max_id.max(Some(s));
            }
            _ => {
                want(2)?;
                let (a, b) = (number(tokens[0], "switch")?, number(tokens[1], "switch")?);
                if a == b {
                    return Err(err(
                        line_no,
                        tokens[1].1,
                        format!("switch {a} is linked to itself"),
                    ));
                }
                if let Some(first) = seen.insert((a.min(b), a.max(b)), line_no) {
                    return Err(err(
                        line_no,
                        tokens[0].1,
                        format!("link {a}-{b} is already given on line {first}"),
                    ));
                }
                edges.push((a, b));
                max_id = max_id.max(Some(a.max(b)));
            }
        }
    }
    let Some(max_id) = max_id else {
        return Err(err(1, 1, "no links: expected lines `A B`".to_string()));
    };
    let counts: Vec<u32> = (0..=max_id)
        .map(|s| per_switch.get(&s).copied().unwrap_or(default))
        .collect();
    let spec = format!("graph:file={path}{}", routing.spec_suffix("adaptive"));
    let graph = SwitchGraph::new(&spec, &counts, &edges)?;
    if graph.nodes() == 0 {
        return Err(err(1, 1, "the network has no nodes".to_string()));
    }
    TableRouted::new(spec, graph, routing)
}

#[cfg(test)]
mod tests {
    use super::super::Topology;
    use super::super::{build, structure};
    use super::parse;
    use crate::topology::table_routing::TableRouting::{Adaptive, Minimal};

    fn torus_8x8() -> String {
        let mut text = String::from("# 8-ary 2-cube\n");
        for y in 0..8 {
            for x in 0..8 {
                let s = y * 8 + x;
                text += &format!(
                    "{s} {}\n{s} {}\n",
                    y * 8 + (x + 1) % 8,
                    ((y + 1) % 8) * 8 + x
                );
            }
        }
        text
    }

    /// A 2-D torus read from a file has the counts of `torus:k=8,n=2`.
    #[test]
    fn torus_file_counts_like_torus() {
        let t = build("torus:k=8,n=2").unwrap();
        for routing in [Adaptive, Minimal] {
            let g = parse("t.txt", &torus_8x8(), routing).unwrap();
            let (a, b) = (structure(&g), structure(t.as_ref()));
            assert_eq!(
                (a.nodes, a.switches, a.links, a.switch_links, a.radix),
                (b.nodes, b.switches, b.links, b.switch_links, b.radix)
            );
        }
    }

    #[test]
    fn errors_name_line_and_column() {
        let cases = [
            ("0 1\n1 x\n", "t:2:3: expected a switch number"),
            (
                "0 1\n# c\n1 0\n",
                "t:3:1: link 1-0 is already given on line 1",
            ),
            ("0 1 2\n", "t:1:5: expected `A B`"),
            ("0 0\n", "t:1:3: switch 0 is linked to itself"),
            (
                "0 1\nnodes_per_switch 2\n",
                "t:2:1: nodes_per_switch must come before",
            ),
            ("# nothing\n", "t:1:1: no links"),
        ];
        for (text, want) in cases {
            let e = parse("t", text, Adaptive).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
        let e = parse("t", "0 1\n2 3\n", Adaptive).unwrap_err().to_string();
        assert!(
            e.contains("not connected: switch 2 cannot be reached"),
            "{e}"
        );
        let g = parse(
            "t",
            "nodes_per_switch 2\nnodes 1 0\n0 1 # x\n1 2\n",
            Minimal,
        )
        .unwrap();
        assert_eq!((structure(&g).nodes, g.node_attachment(2)), (4, (2, 0)));
    }
}
