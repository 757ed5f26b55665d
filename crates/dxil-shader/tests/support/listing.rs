//! A reader for the metadata section of DXC's listings (`X.ll`): named metadata and numbered
//! nodes, split into operands. Just enough LLVM assembly syntax for `!dx.*` metadata.

use std::collections::HashMap;

/// One operand of a metadata node, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Null,
    /// `!7`
    Ref(u32),
    /// `!"text"`, unescaped.
    Str(Vec<u8>),
    /// `i32 5`, `i1 true`, `i64 -1`: the integer.
    Int(i64),
    /// Any other typed value (`float 6.4e1`, `%T* undef`, `void ()* @main`), as written.
    Other(String),
}

#[derive(Default)]
pub struct Listing {
    pub named: HashMap<String, Vec<u32>>,
    pub nodes: HashMap<u32, Vec<Op>>,
}

impl Listing {
    pub fn parse(text: &str) -> Listing {
        let mut l = Listing::default();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix('!') else {
                continue;
            };
            let Some((lhs, rhs)) = rest.split_once(" = ") else {
                continue;
            };
            let rhs = rhs.strip_prefix("distinct ").unwrap_or(rhs);
            let Some(body) = rhs.strip_prefix("!{").and_then(|b| b.strip_suffix('}')) else {
                continue;
            };
            let ops: Vec<Op> = split_top(body).into_iter().map(parse_op).collect();
            match lhs.parse::<u32>() {
                Ok(n) => {
                    l.nodes.insert(n, ops);
                }
                Err(_) => {
                    let refs = ops
                        .iter()
                        .filter_map(|o| match o {
                            Op::Ref(r) => Some(*r),
                            _ => None,
                        })
                        .collect();
                    l.named.insert(lhs.to_string(), refs);
                }
            }
        }
        l
    }

    pub fn node(&self, op: &Op) -> Option<&[Op]> {
        match op {
            Op::Ref(r) => self.nodes.get(r).map(|v| v.as_slice()),
            _ => None,
        }
    }

    pub fn named_node(&self, name: &str) -> Option<&[Op]> {
        let first = *self.named.get(name)?.first()?;
        self.nodes.get(&first).map(|v| v.as_slice())
    }
}

impl Op {
    pub fn int(&self) -> Option<i64> {
        match self {
            Op::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub fn str(&self) -> Option<&[u8]> {
        match self {
            Op::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Splits at commas outside quotes and brackets.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' | '[' | '{' | '<' if !quoted => depth += 1,
            ')' | ']' | '}' | '>' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

fn parse_op(s: &str) -> Op {
    if s == "null" {
        return Op::Null;
    }
    if let Some(q) = s.strip_prefix("!\"").and_then(|q| q.strip_suffix('"')) {
        return Op::Str(unescape(q));
    }
    if let Some(n) = s.strip_prefix('!').and_then(|n| n.parse().ok()) {
        return Op::Ref(n);
    }
    if let Some((ty, v)) = s.split_once(' ')
        && ty.starts_with('i')
        && ty[1..].bytes().all(|b| b.is_ascii_digit())
    {
        match v {
            "true" => return Op::Int(1),
            "false" => return Op::Int(0),
            _ => {
                if let Ok(x) = v.parse::<i64>() {
                    return Op::Int(x);
                }
                // i64 values above i64::MAX print unsigned.
                if let Ok(x) = v.parse::<u64>() {
                    return Op::Int(x as i64);
                }
            }
        }
    }
    Op::Other(s.to_string())
}

/// LLVM's string escapes: `\XX` hex bytes and `\\`.
pub fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if b.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if let Some(hex) = s.get(i + 1..i + 3)
                && let Ok(v) = u8::from_str_radix(hex, 16)
            {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_operands() {
        let l = Listing::parse(concat!(
            "!dx.resources = !{!4}\n",
            "!4 = !{null, !5, null, null}\n",
            "!6 = !{i32 0, %\"class.RWStructuredBuffer<unsigned int>\"* bitcast (%dx.types.Handle* @\"\\01?RWBuf\" to %\"class.RWStructuredBuffer<unsigned int>\"*), !\"RW\\01Buf\", i32 0, i32 -1, i1 true, i64 3229646864, !7}\n",
        ));
        assert_eq!(l.named["dx.resources"], vec![4]);
        assert_eq!(l.nodes[&4], vec![Op::Null, Op::Ref(5), Op::Null, Op::Null]);
        let n = &l.nodes[&6];
        assert_eq!(n.len(), 8);
        assert_eq!(n[0], Op::Int(0));
        assert!(matches!(n[1], Op::Other(_)));
        assert_eq!(n[2], Op::Str(b"RW\x01Buf".to_vec()));
        assert_eq!(n[4], Op::Int(-1));
        assert_eq!(n[5], Op::Int(1));
        assert_eq!(n[6], Op::Int(3229646864));
        assert_eq!(n[7], Op::Ref(7));
    }
}
