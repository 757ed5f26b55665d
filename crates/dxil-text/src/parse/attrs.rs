//! Attributes: `attributes #N = { ... }` groups, parameter and return attributes, function
//! attributes on declarations and call sites, turned into the bitcode's attribute groups (one
//! per slot) and lists (one per distinct combination), with LLVM 3.7's attribute kind codes.

use dxil_module::{AttrGroup, AttrListId, Attribute, FUNCTION_SLOT, FuncId, InstId, InstKind};

use super::lexer::Tok;
use super::{FxMap, Parser, Result};

/// Bitcode kind codes of LLVM 3.7's enum and integer attributes (`ATTR_KIND_*`), and whether
/// the attribute carries an integer.
fn attr_kind(w: &str) -> Option<(u32, bool)> {
    Some(match w {
        "align" => (1, true),
        "alwaysinline" => (2, false),
        "byval" => (3, false),
        "inlinehint" => (4, false),
        "inreg" => (5, false),
        "minsize" => (6, false),
        "naked" => (7, false),
        "nest" => (8, false),
        "noalias" => (9, false),
        "nobuiltin" => (10, false),
        "nocapture" => (11, false),
        "noduplicate" => (12, false),
        "noimplicitfloat" => (13, false),
        "noinline" => (14, false),
        "nonlazybind" => (15, false),
        "noredzone" => (16, false),
        "noreturn" => (17, false),
        "nounwind" => (18, false),
        "optsize" => (19, false),
        "readnone" => (20, false),
        "readonly" => (21, false),
        "returned" => (22, false),
        "returns_twice" => (23, false),
        "signext" => (24, false),
        "alignstack" => (25, true),
        "ssp" => (26, false),
        "sspreq" => (27, false),
        "sspstrong" => (28, false),
        "sret" => (29, false),
        "sanitize_address" => (30, false),
        "sanitize_thread" => (31, false),
        "sanitize_memory" => (32, false),
        "uwtable" => (33, false),
        "zeroext" => (34, false),
        "builtin" => (35, false),
        "cold" => (36, false),
        "optnone" => (37, false),
        "inalloca" => (38, false),
        "nonnull" => (39, false),
        "jumptable" => (40, false),
        "dereferenceable" => (41, true),
        "dereferenceable_or_null" => (42, true),
        "convergent" => (43, false),
        "safestack" => (44, false),
        "argmemonly" => (45, false),
        _ => return None,
    })
}

/// What an attribute list is for.
#[derive(Copy, Clone)]
enum Target {
    Function(FuncId),
    Call(FuncId, InstId),
}

struct Pending {
    target: Target,
    /// Return value (0) and parameter (1-based) attributes.
    slots: Vec<(u32, Vec<Attribute>)>,
    fn_attrs: Vec<Attribute>,
    /// `#N` references and where they are.
    refs: Vec<(u32, u32)>,
}

#[derive(Default)]
pub(crate) struct AttrState {
    /// `attributes #N = { ... }` by N.
    groups: FxMap<u32, Vec<Attribute>>,
    pending: Vec<Pending>,
}

impl<'a> Parser<'a> {
    /// An integer attribute value: `name N` or `name(N)` outside groups, `name=N` in them.
    fn attr_int(&mut self) -> Result<u64> {
        let paren = self.eat(Tok::LParen)?;
        if !paren {
            self.eat(Tok::Equal)?;
        }
        if self.tok.tok != Tok::Int {
            return Err(self.expected("an attribute value"));
        }
        let v = self
            .text()
            .parse::<u64>()
            .map_err(|_| self.err("attribute value must be an unsigned 64-bit integer"))?;
        self.bump()?;
        if paren {
            self.expect(Tok::RParen, "')'")?;
        }
        Ok(v)
    }

    /// `"key"` or `"key"="value"`.
    fn string_attr(&mut self) -> Result<Attribute> {
        let key = self.raw_string("an attribute name")?;
        if self.eat(Tok::Equal)? {
            let v = self.raw_string("an attribute value string")?;
            return Ok(if v.is_empty() {
                Attribute::Str(key)
            } else {
                Attribute::StrValue(key, v)
            });
        }
        Ok(Attribute::Str(key))
    }

    /// One attribute if the current token starts one.
    fn one_attr(&mut self) -> Result<Option<Attribute>> {
        match self.tok.tok {
            Tok::Str => Ok(Some(self.string_attr()?)),
            Tok::Word => {
                let Some((code, int)) = attr_kind(self.text()) else {
                    return Ok(None);
                };
                self.bump()?;
                Ok(Some(if int {
                    Attribute::Int(code, self.attr_int()?)
                } else {
                    Attribute::Enum(code)
                }))
            }
            _ => Ok(None),
        }
    }

    /// Return-value and parameter attributes before a type or after a parameter type.
    pub(crate) fn param_attrs(&mut self) -> Result<Vec<Attribute>> {
        let mut v = Vec::new();
        while let Some(a) = self.one_attr()? {
            v.push(a);
        }
        Ok(v)
    }

    /// A function attribute written inline; false when the current token is not one.
    pub(crate) fn fn_attr(&mut self, out: &mut Vec<Attribute>) -> Result<bool> {
        match self.one_attr()? {
            Some(a) => {
                out.push(a);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// `attributes #N = { ... }`.
    pub(crate) fn attribute_group(&mut self) -> Result<()> {
        self.bump()?;
        let t = self.tok;
        let Tok::AttrGroupId(n) = t.tok else {
            return Err(self.expected("'#N'"));
        };
        self.bump()?;
        self.expect(Tok::Equal, "'='")?;
        self.expect(Tok::LBrace, "'{'")?;
        let mut attrs = Vec::new();
        while !self.eat(Tok::RBrace)? {
            match self.one_attr()? {
                Some(a) => attrs.push(a),
                None => return Err(self.expected("an attribute or '}'")),
            }
        }
        if self.attrs.groups.insert(n, attrs).is_some() {
            return Err(self.err_at(t.start, format!("redefinition of attribute group #{n}")));
        }
        Ok(())
    }

    /// Records the attributes of a function (`inst` = None, the function about to be added) or
    /// of a call in the function being parsed; the list is built at the end of the module,
    /// when every `#N` is known.
    pub(crate) fn attrs_pending(
        &mut self,
        slots: Vec<(u32, Vec<Attribute>)>,
        fn_attrs: Vec<Attribute>,
        refs: Vec<(u32, u32)>,
        inst: Option<InstId>,
    ) -> Option<AttrListId> {
        if slots.is_empty() && fn_attrs.is_empty() && refs.is_empty() {
            return None;
        }
        let n = self.m.functions.len() as u32;
        let target = match inst {
            None => Target::Function(FuncId(n)),
            Some(i) => Target::Call(FuncId(n.saturating_sub(1)), i),
        };
        let id = AttrListId(self.attrs.pending.len() as u32);
        self.attrs.pending.push(Pending {
            target,
            slots,
            fn_attrs,
            refs,
        });
        Some(id)
    }

    /// Builds groups and lists from the pending attribute sets and points functions and calls
    /// at them.
    pub(crate) fn attrs_finish(&mut self) -> Result<()> {
        let pending = std::mem::take(&mut self.attrs.pending);
        let mut group_ids: FxMap<(u32, Vec<Attribute>), u32> = FxMap::default();
        let mut list_ids: FxMap<Vec<u32>, u32> = FxMap::default();
        for p in pending {
            let mut fn_attrs = p.fn_attrs;
            for &(n, at) in &p.refs {
                match self.attrs.groups.get(&n) {
                    Some(g) => fn_attrs.extend(g.iter().cloned()),
                    None => {
                        return Err(
                            self.err_at(at, format!("use of undefined attribute group #{n}"))
                        );
                    }
                }
            }
            let mut slots = p.slots;
            if !fn_attrs.is_empty() {
                slots.push((FUNCTION_SLOT, fn_attrs));
            }
            slots.sort_by_key(|s| s.0);
            if slots.is_empty() {
                self.set_attrs(p.target, None);
                continue;
            }
            let mut list = Vec::with_capacity(slots.len());
            for (slot, attrs) in slots {
                let next = self.m.attr_groups.len() as u32 + 1;
                let id = *group_ids.entry((slot, attrs.clone())).or_insert_with(|| {
                    self.m.attr_groups.push(AttrGroup {
                        id: next,
                        slot,
                        attrs,
                    });
                    next
                });
                if !list.contains(&id) {
                    list.push(id);
                }
            }
            let next = self.m.attr_lists.len() as u32;
            let lid = *list_ids.entry(list.clone()).or_insert_with(|| {
                self.m.attr_lists.push(list);
                next
            });
            self.set_attrs(p.target, Some(AttrListId(lid)));
        }
        Ok(())
    }

    fn set_attrs(&mut self, target: Target, lid: Option<AttrListId>) {
        match target {
            Target::Function(f) => {
                if let Some(func) = self.m.functions.get_mut(f.index()) {
                    func.attrs = lid;
                }
            }
            Target::Call(f, i) => {
                if let Some(InstKind::Call { attrs, .. }) = self
                    .m
                    .functions
                    .get_mut(f.index())
                    .and_then(|f| f.body.as_mut())
                    .and_then(|b| b.insts.get_mut(i.index()))
                    .map(|d| &mut d.kind)
                {
                    *attrs = lid;
                }
            }
        }
    }
}
