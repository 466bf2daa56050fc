//! `file:path=MAP`: an explicit rank-to-node map, one `RANK NODE` pair per line (`#` starts a comment),
//! as a user or a batch scheduler's host list gives it. Every rank of the job appears once, every node
//! at most once, and only free nodes of the machine; each violation is an error with its line.

use super::{Available, Placement};
use crate::error::{Error, Result};
use crate::spec::Entry;
use crate::topology::Topology;
use std::path::PathBuf;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Placement>> = Entry {
    name: "file",
    keys: &["path"],
    help: "explicit map: lines `RANK NODE`",
    build: |p| {
        let path = p.raw("path").ok_or_else(|| p.invalid("needs path=FILE"))?;
        Ok(Box::new(MapFile {
            path: PathBuf::from(path),
        }))
    },
};

/// A rank-to-node map read from a file.
#[derive(Debug, Clone)]
pub struct MapFile {
    path: PathBuf,
}

impl Placement for MapFile {
    fn spec(&self) -> String {
        format!("file:path={}", self.path.display())
    }

    fn place_on(
        &self,
        ranks: u32,
        topo: &dyn Topology,
        available: &Available,
        _seed: u64,
    ) -> Result<Vec<u32>> {
        let path = self.path.display().to_string();
        let text =
            crate::input::read_text(&self.path, "a placement map", crate::input::MAX_TEXT_BYTES)?;
        let at = |line: usize, column: usize, message: String| Error::File {
            path: path.clone(),
            line,
            column,
            message,
        };
        let mut map: Vec<Option<u32>> = vec![None; ranks as usize];
        let mut owner: Vec<Option<(u32, usize)>> = vec![None; topo.nodes() as usize];
        // A byte-order mark, which some editors write first, is not part of the first line.
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or("");
            let mut fields = Vec::new();
            let mut rest = content;
            while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
                let tail = &rest[start..];
                let len = tail.find(char::is_whitespace).unwrap_or(tail.len());
                fields.push((content.len() - rest.len() + start + 1, &tail[..len]));
                rest = &tail[len..];
            }
            if fields.is_empty() {
                continue;
            }
            if fields.len() != 2 {
                let col = fields.get(2).map_or(1, |f| f.0);
                return Err(at(
                    line,
                    col,
                    format!("expected `RANK NODE`, found {} fields", fields.len()),
                ));
            }
            let number = |(col, text): (usize, &str), what: &str| {
                text.parse::<u32>().map_err(|_| {
                    at(
                        line,
                        col,
                        format!("expected a {what} number, found `{text}`"),
                    )
                })
            };
            let (rank, node) = (number(fields[0], "rank")?, number(fields[1], "node")?);
            if rank >= ranks {
                return Err(at(
                    line,
                    fields[0].0,
                    format!(
                        "rank {rank} is out of range: the job has ranks 0 to {}",
                        ranks.saturating_sub(1)
                    ),
                ));
            }
            if node >= topo.nodes() {
                return Err(at(
                    line,
                    fields[1].0,
                    format!(
                        "node {node} is out of range: `{}` has nodes 0 to {}",
                        topo.spec(),
                        topo.nodes() - 1
                    ),
                ));
            }
            if !available.is_free(node) {
                return Err(at(
                    line,
                    fields[1].0,
                    format!("node {node} is not free (taken by another job or marked busy)"),
                ));
            }
            if map[rank as usize].is_some() {
                return Err(at(
                    line,
                    fields[0].0,
                    format!("rank {rank} is mapped twice"),
                ));
            }
            if let Some((other, first)) = owner[node as usize] {
                return Err(at(
                    line,
                    fields[1].0,
                    format!("node {node} is already given to rank {other} on line {first}"),
                ));
            }
            map[rank as usize] = Some(node);
            owner[node as usize] = Some((rank, line));
        }
        let missing: Vec<String> = map
            .iter()
            .enumerate()
            .filter(|(_, n)| n.is_none())
            .take(5)
            .map(|(r, _)| r.to_string())
            .collect();
        if !missing.is_empty() {
            return Err(at(
                text.lines().count() + 1,
                1,
                format!(
                    "ranks without a node: {}{}",
                    missing.join(", "),
                    if map.iter().filter(|n| n.is_none()).count() > 5 {
                        ", ..."
                    } else {
                        ""
                    }
                ),
            ));
        }
        Ok(map.into_iter().flatten().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(text: &str, ranks: u32) -> Result<Vec<u32>> {
        let dir = std::env::temp_dir().join(format!(
            "netreplay-mapfile-{}-{}",
            std::process::id(),
            text.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("map");
        std::fs::write(&path, text).unwrap();
        let topo = crate::topology::build("fat-tree:k=2,n=3").unwrap();
        let result = MapFile { path }.place(ranks, topo.as_ref(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
        result
    }

    #[test]
    fn reads_maps_and_names_each_error_by_line_and_column() {
        assert_eq!(place("# map\n1 7\n0 3  # rank 0\n\n", 2).unwrap(), [3, 7]);
        assert_eq!(place("\u{feff}0 3\n1 7\n", 2).unwrap(), [3, 7]);
        let cases = [
            ("0 1\n0 2\n", "2:1", "rank 0 is mapped twice"),
            (
                "0 1\n1 1\n",
                "2:3",
                "node 1 is already given to rank 0 on line 1",
            ),
            (
                "0 1\n 1  9\n",
                "2:5",
                "node 9 is out of range: `fat-tree:k=2,n=3` has nodes 0 to 7",
            ),
            (
                "0 1\n2 3\n",
                "2:1",
                "rank 2 is out of range: the job has ranks 0 to 1",
            ),
            ("0 x\n", "1:3", "expected a node number, found `x`"),
            ("0 1 2\n", "1:5", "found 3 fields"),
            ("0 1\n", "2:1", "ranks without a node: 1"),
        ];
        for (text, position, message) in cases {
            let e = place(text, 2).unwrap_err().to_string();
            assert!(
                e.contains(&format!("map:{position}:")) && e.contains(message),
                "{text:?}: {e}"
            );
        }
    }
}
