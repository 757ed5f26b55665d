//! Attribute sets as LLVM 3.7 holds them after reading bitcode: per index (function, return value,
//! parameter), deduplicated and sorted the way `AttributeSetNode` sorts them.

use std::collections::HashMap;
use std::fmt::{self, Write};

use dxil_module::{AttrListId, Attribute, FUNCTION_SLOT, Module};

use super::number::write_u64;

/// One attribute. Enum and integer attributes carry their position in LLVM 3.7's in-memory
/// `Attribute::AttrKind` enumeration, which decides the printed order.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Attr<'m> {
    Enum(u8),
    Int(u8, u64),
    /// Key and value (empty when the attribute has none).
    Str(&'m str, &'m str),
}

/// Bitcode attribute kind code → (`AttrKind` position, spelling, is an integer attribute).
const fn kind_info(code: u32) -> Option<(u8, &'static str, bool)> {
    Some(match code {
        1 => (1, "align", true),
        2 => (2, "alwaysinline", false),
        3 => (4, "byval", false),
        4 => (8, "inlinehint", false),
        5 => (9, "inreg", false),
        6 => (11, "minsize", false),
        7 => (12, "naked", false),
        8 => (13, "nest", false),
        9 => (14, "noalias", false),
        10 => (15, "nobuiltin", false),
        11 => (16, "nocapture", false),
        12 => (17, "noduplicate", false),
        13 => (18, "noimplicitfloat", false),
        14 => (19, "noinline", false),
        15 => (20, "nonlazybind", false),
        16 => (24, "noredzone", false),
        17 => (25, "noreturn", false),
        18 => (26, "nounwind", false),
        19 => (27, "optsize", false),
        20 => (29, "readnone", false),
        21 => (30, "readonly", false),
        22 => (32, "returned", false),
        23 => (33, "returns_twice", false),
        24 => (34, "signext", false),
        25 => (35, "alignstack", true),
        26 => (36, "ssp", false),
        27 => (37, "sspreq", false),
        28 => (38, "sspstrong", false),
        29 => (40, "sret", false),
        30 => (41, "sanitize_address", false),
        31 => (42, "sanitize_thread", false),
        32 => (43, "sanitize_memory", false),
        33 => (44, "uwtable", false),
        34 => (45, "zeroext", false),
        35 => (3, "builtin", false),
        36 => (6, "cold", false),
        37 => (28, "optnone", false),
        38 => (5, "inalloca", false),
        39 => (21, "nonnull", false),
        40 => (10, "jumptable", false),
        41 => (22, "dereferenceable", true),
        42 => (23, "dereferenceable_or_null", true),
        43 => (7, "convergent", false),
        44 => (39, "safestack", false),
        45 => (31, "argmemonly", false),
        _ => return None,
    })
}

/// Spelling of an enum or integer attribute by its `AttrKind` position.
/// Attribute names by sort order, built from [`kind_info`] at compile time: printing an
/// attribute is a lookup, not a search.
const NAME_BY_ORDER: [&str; 256] = {
    let mut names = ["<unknown attribute>"; 256];
    let mut code = 1;
    while code <= 45 {
        if let Some((order, name, _)) = kind_info(code) {
            names[order as usize] = name;
        }
        code += 1;
    }
    names
};

fn name_of(order: u8) -> &'static str {
    NAME_BY_ORDER[order as usize]
}

fn class(a: &Attr<'_>) -> u8 {
    match a {
        Attr::Enum(_) => 0,
        Attr::Int(..) => 1,
        Attr::Str(..) => 2,
    }
}

/// `AttributeImpl::operator<`: enums by kind, then integers by value alone (LLVM 3.7 does not
/// look at their kinds; ties here fall back to the kind for determinism), then strings.
fn attr_order(a: &Attr<'_>, b: &Attr<'_>) -> std::cmp::Ordering {
    match (a, b) {
        (Attr::Enum(x), Attr::Enum(y)) => x.cmp(y),
        (Attr::Int(kx, vx), Attr::Int(ky, vy)) => vx.cmp(vy).then(kx.cmp(ky)),
        (Attr::Str(kx, vx), Attr::Str(ky, vy)) => kx.cmp(ky).then(vx.cmp(vy)),
        _ => class(a).cmp(&class(b)),
    }
}

/// Builds one index's attributes the way an `AttrBuilder` collects a group record: one entry per
/// enum kind, the last value per integer kind (zero values are dropped), the last value per
/// string key.
fn canonical<'m>(attrs: &'m [Attribute]) -> Vec<Attr<'m>> {
    let mut out: Vec<Attr<'m>> = Vec::with_capacity(attrs.len());
    for a in attrs {
        let new = match a {
            Attribute::Enum(code) => match kind_info(*code) {
                Some((order, _, false)) => Attr::Enum(order),
                _ => continue,
            },
            Attribute::Int(code, v) => match kind_info(*code) {
                Some((order, _, true)) if *v != 0 => Attr::Int(order, *v),
                _ => continue,
            },
            Attribute::Str(k) => Attr::Str(k.as_str(), ""),
            Attribute::StrValue(k, v) => Attr::Str(k.as_str(), v.as_str()),
        };
        let same = |x: &Attr<'m>| match (x, &new) {
            (Attr::Enum(a), Attr::Enum(b)) => a == b,
            (Attr::Int(a, _), Attr::Int(b, _)) => a == b,
            (Attr::Str(a, _), Attr::Str(b, _)) => a == b,
            _ => false,
        };
        match out.iter_mut().find(|x| same(x)) {
            Some(slot) => *slot = new,
            None => out.push(new),
        }
    }
    out.sort_by(attr_order);
    out
}

/// The module's attribute lists, resolved.
pub(crate) struct AttrTable<'m> {
    /// Per attribute list: (index, attributes) pairs.
    lists: Vec<Vec<(u32, Vec<Attr<'m>>)>>,
    /// Per attribute list: its function attributes as a distinct-set number, if it has any.
    fn_set: Vec<Option<u32>>,
    /// Distinct function attribute sets, by set number.
    fn_sets: Vec<Vec<Attr<'m>>>,
}

impl<'m> AttrTable<'m> {
    pub(crate) fn new(m: &'m Module) -> Self {
        // Group id → index of its first definition.
        let mut by_id: Vec<(u32, usize)> = m
            .attr_groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.id, i))
            .collect();
        by_id.sort_by_key(|e| e.0);
        by_id.dedup_by_key(|e| e.0);
        // Modules have a handful of distinct sets; the index is built only for unusual ones.
        let mut set_index: Option<HashMap<Vec<Attr<'m>>, u32>> = None;
        let mut fn_sets: Vec<Vec<Attr<'m>>> = Vec::new();
        let mut lists = Vec::with_capacity(m.attr_lists.len());
        let mut fn_set = Vec::with_capacity(m.attr_lists.len());
        for groups in &m.attr_lists {
            let mut slots: Vec<(u32, Vec<Attr<'m>>)> = Vec::new();
            for gid in groups {
                let Some(g) = by_id
                    .binary_search_by_key(gid, |e| e.0)
                    .ok()
                    .and_then(|i| by_id.get(i))
                    .and_then(|&(_, i)| m.attr_groups.get(i))
                else {
                    continue;
                };
                // LLVM keeps both nodes when two groups name one index and finds the first.
                if slots.iter().any(|(s, _)| *s == g.slot) {
                    continue;
                }
                let attrs = canonical(&g.attrs);
                if !attrs.is_empty() {
                    slots.push((g.slot, attrs));
                }
            }
            let set = slots
                .iter()
                .find(|(s, _)| *s == FUNCTION_SLOT)
                .map(|(_, attrs)| {
                    if set_index.is_none() && fn_sets.len() >= 16 {
                        let index = fn_sets
                            .iter()
                            .enumerate()
                            .map(|(i, s)| (s.clone(), i as u32))
                            .collect();
                        set_index = Some(index);
                    }
                    let found = match &set_index {
                        Some(index) => index.get(attrs).copied(),
                        None => fn_sets.iter().position(|s| s == attrs).map(|i| i as u32),
                    };
                    found.unwrap_or_else(|| {
                        let n = fn_sets.len() as u32;
                        fn_sets.push(attrs.clone());
                        if let Some(index) = &mut set_index {
                            index.insert(attrs.clone(), n);
                        }
                        n
                    })
                });
            fn_set.push(set);
            lists.push(slots);
        }
        AttrTable {
            lists,
            fn_set,
            fn_sets,
        }
    }

    /// The attributes of `index` (`FUNCTION_SLOT`, 0 for the return value, i for parameter i).
    pub(crate) fn get(&self, list: Option<AttrListId>, index: u32) -> &[Attr<'m>] {
        list.and_then(|l| self.lists.get(l.index()))
            .and_then(|slots| slots.iter().find(|(s, _)| *s == index))
            .map_or(&[], |(_, a)| a.as_slice())
    }

    /// The distinct-set number of a list's function attributes.
    pub(crate) fn fn_set(&self, list: Option<AttrListId>) -> Option<u32> {
        list.and_then(|l| self.fn_set.get(l.index()).copied().flatten())
    }

    pub(crate) fn fn_set_attrs(&self, set: u32) -> &[Attr<'m>] {
        self.fn_sets.get(set as usize).map_or(&[], |v| v.as_slice())
    }

    pub(crate) fn fn_set_count(&self) -> usize {
        self.fn_sets.len()
    }
}

/// Writes one attribute. In an `attributes #N` group integers are `align=4`, elsewhere `align 4`
/// and `dereferenceable(8)`.
pub(crate) fn write_attr<W: Write + ?Sized>(
    out: &mut W,
    a: &Attr<'_>,
    in_group: bool,
) -> fmt::Result {
    match *a {
        Attr::Enum(order) => out.write_str(name_of(order)),
        Attr::Int(order, v) => {
            let name = name_of(order);
            out.write_str(name)?;
            if in_group {
                out.write_char('=')?;
                write_u64(out, v)
            } else if name == "align" {
                out.write_char(' ')?;
                write_u64(out, v)
            } else {
                out.write_char('(')?;
                write_u64(out, v)?;
                out.write_char(')')
            }
        }
        Attr::Str(k, v) => {
            // LLVM 3.7 writes string attributes without escaping.
            out.write_char('"')?;
            out.write_str(k)?;
            out.write_char('"')?;
            if !v.is_empty() {
                out.write_str("=\"")?;
                out.write_str(v)?;
                out.write_char('"')?;
            }
            Ok(())
        }
    }
}

/// Writes attributes separated by spaces; `only_enums` leaves string attributes out (the
/// `; Function Attrs:` comment).
pub(crate) fn write_attrs<W: Write + ?Sized>(
    out: &mut W,
    attrs: &[Attr<'_>],
    in_group: bool,
    only_enums: bool,
) -> fmt::Result {
    let mut first = true;
    for a in attrs {
        if only_enums && matches!(a, Attr::Str(..)) {
            continue;
        }
        if !first {
            out.write_char(' ')?;
        }
        first = false;
        write_attr(out, a, in_group)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dxil_module::AttrGroup;

    fn text(attrs: &[Attr<'_>], in_group: bool) -> String {
        let mut s = String::new();
        write_attrs(&mut s, attrs, in_group, false).unwrap();
        s
    }

    #[test]
    fn enums_sort_by_llvm_kind_order_not_bitcode_code() {
        // nounwind (18) and noduplicate (12); readnone (20) before readonly (21); convergent (43)
        // sorts near the front in memory.
        let a = [
            Attribute::Enum(18),
            Attribute::Enum(12),
            Attribute::Enum(43),
            Attribute::Enum(20),
        ];
        assert_eq!(
            text(&canonical(&a), true),
            "convergent noduplicate nounwind readnone"
        );
    }

    #[test]
    fn integers_follow_enums_and_strings_come_last_sorted_by_key() {
        let a = [
            Attribute::StrValue("zz".into(), "1".into()),
            Attribute::Int(1, 16),
            Attribute::Str("fp32-denorm-mode".into()),
            Attribute::Enum(18),
            Attribute::Int(41, 8),
        ];
        let c = canonical(&a);
        assert_eq!(
            text(&c, true),
            "nounwind dereferenceable=8 align=16 \"fp32-denorm-mode\" \"zz\"=\"1\""
        );
        assert_eq!(
            text(&c, false),
            "nounwind dereferenceable(8) align 16 \"fp32-denorm-mode\" \"zz\"=\"1\""
        );
        let mut s = String::new();
        write_attrs(&mut s, &c, false, true).unwrap();
        assert_eq!(s, "nounwind dereferenceable(8) align 16");
    }

    #[test]
    fn duplicates_collapse_and_zero_integers_vanish() {
        let a = [
            Attribute::Enum(18),
            Attribute::Enum(18),
            Attribute::Int(1, 4),
            Attribute::Int(1, 8),
            Attribute::Int(25, 0),
            Attribute::StrValue("k".into(), "a".into()),
            Attribute::StrValue("k".into(), "b".into()),
            Attribute::Enum(999),
        ];
        assert_eq!(text(&canonical(&a), true), "nounwind align=8 \"k\"=\"b\"");
    }

    #[test]
    fn lists_share_function_sets_by_content() {
        let mut m = Module::default();
        let group = |id, slot, attrs: Vec<Attribute>| AttrGroup { id, slot, attrs };
        m.attr_groups = vec![
            group(
                1,
                FUNCTION_SLOT,
                vec![Attribute::Enum(20), Attribute::Enum(18)],
            ),
            group(
                2,
                FUNCTION_SLOT,
                vec![Attribute::Enum(18), Attribute::Enum(20)],
            ),
            group(3, 1, vec![Attribute::Enum(11)]),
            group(4, FUNCTION_SLOT, vec![Attribute::Enum(18)]),
        ];
        m.attr_lists = vec![vec![1], vec![3, 2], vec![4], vec![3]];
        let t = AttrTable::new(&m);
        assert_eq!(t.fn_set(Some(AttrListId(0))), Some(0));
        assert_eq!(t.fn_set(Some(AttrListId(1))), Some(0));
        assert_eq!(t.fn_set(Some(AttrListId(2))), Some(1));
        assert_eq!(t.fn_set(Some(AttrListId(3))), None);
        assert_eq!(t.fn_set(None), None);
        assert_eq!(t.fn_set_count(), 2);
        assert_eq!(text(t.get(Some(AttrListId(1)), 1), false), "nocapture");
        assert!(t.get(Some(AttrListId(1)), 2).is_empty());
        assert!(t.get(Some(AttrListId(9)), 1).is_empty());
        assert_eq!(text(t.fn_set_attrs(1), true), "nounwind");
    }
}
