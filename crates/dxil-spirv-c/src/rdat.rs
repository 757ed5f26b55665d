//! State subobjects of a DXIL library (the `RDAT` part's subobject table): root signatures, hit groups, shader and
//! pipeline configurations, export associations, as `dxil_spv_parsed_blob_get_rdat_subobject` reports them.
//!
//! dxil-container reads the part's table of contents ([`RuntimeData`]); the records are decoded here. A record
//! starts with its kind and a name (an offset into the string buffer); the rest depends on the kind:
//!
//! | kind | fields after the name | reported as |
//! |---|---|---|
//! | 0 state object config | flags | `args[0]` |
//! | 1, 2 global / local root signature | (offset, size) in the raw bytes | `payload` (an RTS0 payload) |
//! | 8 subobject-to-exports association | subobject name, index array of export names | `exports`: the subobject, then the exports |
//! | 9 raytracing shader config | max payload size, max attribute size | `args` |
//! | 10 raytracing pipeline config | max recursion depth | `args[0]` |
//! | 11 hit group | type, any-hit, closest-hit, intersection names | `hit_group_type`, `exports` (3 names) |
//! | 12 raytracing pipeline config 1 | max recursion depth, flags | `args` |
//!
//! Index arrays are addressed in 32-bit words: a count, then that many entries. Records of other kinds are skipped;
//! a record that reads outside its part makes the whole table unreadable (no subobjects).
//!
//! Names and payloads are reported where they are in the caller's container (positions in the part here): callers
//! keep using a root signature payload after freeing the blob, as dxil-spirv allows, since its pointers also point
//! into the container. Every name is checked to end with a NUL inside the string buffer.

use dxil_container::parts::RuntimeData;

/// One decoded subobject; names and the payload as byte positions in the `RDAT` payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subobject {
    pub kind: u32,
    /// Position of the NUL-terminated name.
    pub name: usize,
    pub hit_group_type: u32,
    /// Positions of NUL-terminated names.
    pub exports: Vec<usize>,
    pub args: [u32; 2],
    /// (position, size) of the payload; size 0 when none.
    pub payload: (usize, usize),
}

const STRING_BUFFER: u32 = 1;
const INDEX_ARRAYS: u32 = 2;
const RAW_BYTES: u32 = 5;
const SUBOBJECT_TABLE: u32 = 6;

/// Little-endian words of a byte slice, by index, bounds-checked.
struct Words<'a>(&'a [u8]);

impl Words<'_> {
    fn at(&self, byte: usize) -> Option<u32> {
        let b = self.0.get(byte..byte.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

struct Tables<'a> {
    /// (position in the part, bytes) of the string buffer, the index arrays, the raw bytes.
    strings: (usize, &'a [u8]),
    indices: &'a [u8],
    raw: (usize, &'a [u8]),
}

impl Tables<'_> {
    /// The position of a NUL-terminated string.
    fn string(&self, offset: u32) -> Option<usize> {
        let s = self.strings.1.get(offset as usize..)?;
        s.iter().position(|&b| b == 0)?;
        Some(self.strings.0 + offset as usize)
    }

    fn index_array(&self, word: u32) -> Option<Vec<u32>> {
        let w = Words(self.indices);
        let start = (word as usize).checked_mul(4)?;
        let count = w.at(start)? as usize;
        (0..count)
            .map(|i| w.at(start + 4 + i * 4))
            .collect::<Option<Vec<u32>>>()
    }
}

/// The subobjects of an `RDAT` part's payload (empty when it has none or cannot be read).
pub fn subobjects(rdat: &[u8]) -> Vec<Subobject> {
    decode(rdat).unwrap_or_default()
}

fn decode(rdat: &[u8]) -> Option<Vec<Subobject>> {
    let toc = RuntimeData::parse(rdat, 0).ok()?;
    let part = |kind: u32| -> (usize, &[u8]) {
        toc.parts
            .iter()
            .find(|p| p.part_type == kind)
            .and_then(|p| {
                Some((
                    p.offset,
                    rdat.get(p.offset..p.offset.checked_add(p.size as usize)?)?,
                ))
            })
            .unwrap_or((0, &[]))
    };
    let tables = Tables {
        strings: part(STRING_BUFFER),
        indices: part(INDEX_ARRAYS).1,
        raw: part(RAW_BYTES),
    };
    let table = part(SUBOBJECT_TABLE).1;
    if table.is_empty() {
        return Some(Vec::new());
    }
    let w = Words(table);
    let (count, stride) = (w.at(0)? as usize, w.at(4)? as usize);
    let mut out = Vec::new();
    for i in 0..count {
        let base = 8usize.checked_add(i.checked_mul(stride)?)?;
        let record = table.get(base..base.checked_add(stride)?)?;
        if let Some(s) = record_of(record, &tables)? {
            out.push(s);
        }
    }
    Some(out)
}

/// One record: `None` when it cannot be read, `Some(None)` for a kind that is skipped.
fn record_of(record: &[u8], t: &Tables) -> Option<Option<Subobject>> {
    let r = Words(record);
    let field = |i: usize| r.at(4 * i);
    let kind = field(0)?;
    let name = t.string(field(1)?)?;
    let mut s = Subobject {
        kind,
        name,
        hit_group_type: 0,
        exports: Vec::new(),
        args: [0; 2],
        payload: (0, 0),
    };
    match kind {
        0 | 10 => s.args[0] = field(2)?,
        9 | 12 => s.args = [field(2)?, field(3)?],
        1 | 2 => {
            let (offset, size) = (field(2)? as usize, field(3)? as usize);
            t.raw.1.get(offset..offset.checked_add(size)?)?;
            s.payload = (t.raw.0 + offset, size);
        }
        8 => {
            s.exports.push(t.string(field(2)?)?);
            for name in t.index_array(field(3)?)? {
                s.exports.push(t.string(name)?);
            }
        }
        11 => {
            s.hit_group_type = field(2)?;
            for i in 3..6 {
                s.exports.push(t.string(field(i)?)?);
            }
        }
        _ => return Some(None),
    }
    Some(Some(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// An RDAT payload with a string buffer, index arrays, raw bytes and a subobject table of `records`.
    fn rdat(
        strings: &[u8],
        indices: &[u32],
        raw: &[u8],
        records: &[Vec<u32>],
        stride: u32,
    ) -> Vec<u8> {
        let mut table = words(&[records.len() as u32, stride]);
        for r in records {
            let mut b = words(r);
            b.resize(stride as usize, 0);
            table.extend(b);
        }
        let parts: Vec<(u32, Vec<u8>)> = vec![
            (STRING_BUFFER, strings.to_vec()),
            (INDEX_ARRAYS, words(indices)),
            (RAW_BYTES, raw.to_vec()),
            (SUBOBJECT_TABLE, table),
        ];
        let mut out = words(&[0x10, parts.len() as u32]);
        let mut offset = 8 + 4 * parts.len();
        let mut body = Vec::new();
        for (kind, data) in &parts {
            out.extend(words(&[offset as u32]));
            let mut p = words(&[*kind, data.len() as u32]);
            p.extend(data);
            offset += p.len();
            body.extend(p);
        }
        out.extend(body);
        out
    }

    #[test]
    fn decodes_each_kind() {
        let strings = b"rs\0hg\0ahit\0chit\0\0assoc\0main\0";
        let records = vec![
            // Global root signature "rs", raw bytes 2..5.
            vec![1, 0, 2, 3],
            // Hit group "hg", procedural, "ahit", "chit", "".
            vec![11, 3, 1, 6, 11, 16],
            // Association "assoc" of "rs" to the exports of index array 0.
            vec![8, 17, 0, 0],
            vec![9, 0, 16, 8],
            vec![12, 0, 3, 1],
            // An unknown kind: skipped.
            vec![99, 0],
        ];
        let r = rdat(strings, &[1, 23], b"\x01\x02\x03\x04\x05\x06", &records, 24);
        let s = subobjects(&r);
        let name = |at: usize| {
            let end = r[at..].iter().position(|&b| b == 0).unwrap();
            std::str::from_utf8(&r[at..at + end]).unwrap()
        };
        assert_eq!(s.len(), 5);
        assert_eq!(name(s[0].name), "rs");
        let (at, size) = s[0].payload;
        assert_eq!(&r[at..at + size], b"\x03\x04\x05");
        assert_eq!(s[1].hit_group_type, 1);
        let names: Vec<&str> = s[1].exports.iter().map(|&e| name(e)).collect();
        assert_eq!(names, ["ahit", "chit", ""]);
        let names: Vec<&str> = s[2].exports.iter().map(|&e| name(e)).collect();
        assert_eq!(names, ["rs", "main"]);
        assert_eq!(s[3].args, [16, 8]);
        assert_eq!(s[4].args, [3, 1]);
    }

    #[test]
    fn out_of_range_references_give_no_subobjects() {
        let r = rdat(b"x\0", &[], b"", &[vec![1, 0, 0, 99]], 16);
        assert!(subobjects(&r).is_empty());
        let r = rdat(b"x\0", &[], b"", &[vec![1, 50]], 16);
        assert!(subobjects(&r).is_empty());
        assert!(subobjects(&[1, 2, 3]).is_empty());
    }
}
