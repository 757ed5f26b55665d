//! `ISG1`, `OSG1`, `PSG1`: DXIL ("v1") program signatures.
//!
//! Layout: `{u32 ParamCount; u32 ParamOffset}`, `ParamCount` elements of 32 bytes, then the
//! NUL-terminated semantic names the elements point at (offsets from the part start). From
//! validator 1.7 on, names are shared by content and the part is padded to 4; before 1.7, DXC
//! shares a name only between elements whose name is the same string object (in practice: system
//! values of the same kind) and leaves the size unaligned.

use std::fmt;

use serde::Serialize;

use crate::enums::{ComponentType, MinPrecision, SystemValue};
use crate::read::{Cursor, PutLe, c_str_at, len_u32};
use crate::{Error, ErrorKind, FourCC, Result, ValidatorVersion};

/// Size of one `DxilProgramSignatureElement`.
pub const SIGNATURE_ELEMENT_SIZE: usize = 32;
/// Size of the `DxilProgramSignature` header.
pub const SIGNATURE_HEADER_SIZE: usize = 8;

/// One row of a signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SignatureElement<'a> {
    /// Output stream (GS); elements are ordered by stream first.
    pub stream: u32,
    /// Semantic name.
    pub name: &'a str,
    /// Byte offset of the name from the part start (the string layout; see
    /// [`SignatureBuilder`] for producing it).
    pub name_offset: u32,
    /// Semantic index of this row.
    pub semantic_index: u32,
    /// D3D_NAME system value.
    pub system_value: SystemValue,
    /// Component type.
    pub component_type: ComponentType,
    /// Register (row).
    pub register: u32,
    /// Components present (column allocation).
    pub mask: u8,
    /// `NeverWrites_Mask` for outputs, `AlwaysReads_Mask` for inputs.
    pub rw_mask: u8,
    /// Padding field, zero in DXC output; kept so that odd files write back unchanged.
    pub pad: u16,
    /// Minimum precision.
    pub min_precision: MinPrecision,
}

/// A decoded signature part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Signature<'a> {
    /// Elements in stored order.
    pub elements: Vec<SignatureElement<'a>>,
    /// Names in the string area that no element points at, with their offsets. DXC lays out the
    /// name of every signature element of the module, also of those the part leaves out.
    pub extra_names: Vec<SignatureName<'a>>,
}

/// A name in a signature's string area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SignatureName<'a> {
    /// Byte offset from the part start.
    pub offset: u32,
    /// The name.
    pub name: &'a str,
}

impl<'a> Signature<'a> {
    /// Parses a signature part. `base` is the absolute offset of `data[0]`.
    pub fn parse(data: &'a [u8], base: usize, part: FourCC) -> Result<Self> {
        let mut c = Cursor::new(data, base, Some(part));
        let count = c.u32("parameter count")? as usize;
        let param_offset = c.u32("parameter offset")? as usize;
        c.seek(param_offset, "parameter array")?;
        c.check_records(count, SIGNATURE_ELEMENT_SIZE, "signature elements")?;
        let mut elements = Vec::with_capacity(count);
        for _ in 0..count {
            let stream = c.u32("stream")?;
            let name_pos = c.pos();
            let name_offset = c.u32("semantic name offset")?;
            let semantic_index = c.u32("semantic index")?;
            let system_value = SystemValue::from_raw(c.u32("system value")?);
            let component_type = ComponentType::from_raw(c.u32("component type")?);
            let register = c.u32("register")?;
            let mask = c.u8("mask")?;
            let rw_mask = c.u8("read/write mask")?;
            let pad = c.u16("padding")?;
            let min_precision = MinPrecision::from_raw(c.u32("min precision")?);
            let name = c_str_at(
                data,
                name_offset as usize,
                base,
                Some(part),
                "semantic name",
            )
            .map_err(|e| {
                Error::new(
                    e.kind(),
                    c.abs(name_pos),
                    Some(part),
                    format!("element {}: {}", elements.len(), e.message()),
                )
            })?;
            elements.push(SignatureElement {
                stream,
                name,
                name_offset,
                semantic_index,
                system_value,
                component_type,
                register,
                mask,
                rw_mask,
                pad,
                min_precision,
            });
        }
        let strings_start = param_offset + count * SIGNATURE_ELEMENT_SIZE;
        let extra_names = unreferenced_names(data, strings_start, &elements);
        Ok(Signature {
            elements,
            extra_names,
        })
    }

    /// Serializes the part with the elements in their given order and the names at their given
    /// offsets. The offsets must describe a packed string area right after the elements (as DXC
    /// and [`SignatureBuilder`] produce); the part is padded to 4 for validator 1.7 and later.
    pub fn write(&self, part: FourCC, validator: ValidatorVersion) -> Result<Vec<u8>> {
        let count = len_u32(self.elements.len(), part, "element count")?;
        let strings_start = SIGNATURE_HEADER_SIZE + self.elements.len() * SIGNATURE_ELEMENT_SIZE;
        let mut names: Vec<(u32, &str)> = self
            .elements
            .iter()
            .map(|e| (e.name_offset, e.name))
            .chain(self.extra_names.iter().map(|n| (n.offset, n.name)))
            .collect();
        names.sort_unstable();
        names.dedup();
        let mut out = Vec::with_capacity(strings_start + names.len() * 16);
        out.put_u32(count);
        out.put_u32(SIGNATURE_HEADER_SIZE as u32);
        for e in &self.elements {
            out.put_u32(e.stream);
            out.put_u32(e.name_offset);
            out.put_u32(e.semantic_index);
            out.put_u32(e.system_value.raw());
            out.put_u32(e.component_type.raw());
            out.put_u32(e.register);
            out.put_u8(e.mask);
            out.put_u8(e.rw_mask);
            out.put_u16(e.pad);
            out.put_u32(e.min_precision.raw());
        }
        for &(offset, name) in &names {
            if offset as usize != out.len() {
                let message = if offset as usize > out.len() {
                    format!(
                        "name {name:?} at offset {offset} leaves a gap after {}",
                        out.len()
                    )
                } else {
                    format!(
                        "name {name:?} at offset {offset} overlaps the data before {}",
                        out.len()
                    )
                };
                return Err(Error::new(
                    ErrorKind::Invalid,
                    offset as usize,
                    Some(part),
                    message,
                ));
            }
            if name.as_bytes().contains(&0) {
                return Err(Error::new(
                    ErrorKind::Invalid,
                    offset as usize,
                    Some(part),
                    format!("name {name:?} contains NUL"),
                ));
            }
            out.extend_from_slice(name.as_bytes());
            out.push(0);
        }
        if validator.aligns_signature_parts() {
            out.pad_to_4();
        }
        Ok(out)
    }
}

/// Most unreferenced names kept (DXC writes one per signature element the part leaves out, a
/// handful at most); the bound keeps a hostile string area from costing more memory than input.
pub const MAX_EXTRA_NAMES: usize = 4096;

/// The NUL-terminated strings of the string area that no element points at. The scan stops at
/// the zero padding, at an empty string nothing points at, at bytes that are not a UTF-8 string,
/// or after [`MAX_EXTRA_NAMES`] names (such a part cannot be written back byte for byte, but
/// reading it is still fine).
fn unreferenced_names<'a>(
    data: &'a [u8],
    strings_start: usize,
    elements: &[SignatureElement<'a>],
) -> Vec<SignatureName<'a>> {
    let mut referenced: Vec<u32> = elements.iter().map(|e| e.name_offset).collect();
    referenced.sort_unstable();
    let mut extra = Vec::new();
    let mut pos = strings_start;
    while let Some(tail) = data.get(pos..).filter(|t| !t.is_empty()) {
        // Length first: scanning every tail for zeros would be quadratic.
        if tail.len() < 4 && tail.iter().all(|&b| b == 0) {
            break;
        }
        let Some(len) = tail.iter().position(|&b| b == 0) else {
            break;
        };
        let Ok(name) = std::str::from_utf8(tail.get(..len).unwrap_or_default()) else {
            break;
        };
        let offset = pos as u32;
        if referenced.binary_search(&offset).is_err() {
            if name.is_empty() || extra.len() == MAX_EXTRA_NAMES {
                break;
            }
            extra.push(SignatureName { offset, name });
        }
        pos += len + 1;
    }
    extra
}

/// Builds a signature the way DXC's `DxilProgramSignatureWriter` does, from the module's
/// signature elements in metadata order.
///
/// DXC first lays out one name per metadata element, in metadata order (also for elements that
/// the part leaves out: interpretation `NA` or `NotInSig`), then writes one 32-byte element per
/// row and sorts them by (stream, register, name offset).
#[derive(Debug, Clone)]
pub struct SignatureBuilder<'a> {
    validator: ValidatorVersion,
    names: Vec<(&'a str, bool)>,
    elements: Vec<(NameId, SignatureElement<'a>)>,
}

/// A name laid out by [`SignatureBuilder::add_name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameId(u32);

impl<'a> SignatureBuilder<'a> {
    /// A builder following the rules of `validator` (name sharing and padding change at 1.7).
    pub fn new(validator: ValidatorVersion) -> Self {
        SignatureBuilder {
            validator,
            names: Vec::new(),
            elements: Vec::new(),
        }
    }

    /// Lays out one metadata element's semantic name. `system_value` says the element has a
    /// system-value semantic: before validator 1.7 only those share their name (DXC keys names
    /// by string pointer, and only system values use one static string per kind).
    pub fn add_name(&mut self, name: &'a str, system_value: bool) -> NameId {
        let shared = if self.validator.dedups_signature_names() {
            self.names.iter().position(|&(n, _)| n == name)
        } else if system_value {
            self.names.iter().position(|&(n, sv)| sv && n == name)
        } else {
            None
        };
        match shared {
            Some(i) => NameId(i as u32),
            None => {
                self.names.push((name, system_value));
                NameId(self.names.len() as u32 - 1)
            }
        }
    }

    /// Adds one row; its `name` and `name_offset` are taken from `name`.
    pub fn push(&mut self, name: NameId, element: SignatureElement<'a>) {
        self.elements.push((name, element));
    }

    /// Assigns name offsets and sorts the rows as DXC does.
    pub fn finish(self) -> Signature<'a> {
        let strings_start = SIGNATURE_HEADER_SIZE + self.elements.len() * SIGNATURE_ELEMENT_SIZE;
        let mut offsets = Vec::with_capacity(self.names.len());
        let mut next = strings_start;
        for &(name, _) in &self.names {
            offsets.push(next as u32);
            next += name.len() + 1;
        }
        let mut used = vec![false; self.names.len()];
        for (id, _) in &self.elements {
            if let Some(u) = used.get_mut(id.0 as usize) {
                *u = true;
            }
        }
        let extra_names = self
            .names
            .iter()
            .zip(&offsets)
            .zip(&used)
            .filter(|(_, used)| !**used)
            .map(|((&(name, _), &offset), _)| SignatureName { offset, name })
            .collect();
        let mut elements: Vec<SignatureElement<'a>> = self
            .elements
            .into_iter()
            .map(|(id, mut e)| {
                let i = id.0 as usize;
                e.name = self.names.get(i).map_or("", |n| n.0);
                e.name_offset = offsets.get(i).copied().unwrap_or(0);
                e
            })
            .collect();
        // Stable, like the insertion sort libstdc++ uses for the short arrays DXC sorts.
        elements.sort_by_key(|e| (e.stream, e.register, e.name_offset));
        Signature {
            elements,
            extra_names,
        }
    }
}

impl fmt::Display for Signature<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.elements.is_empty() {
            return writeln!(f, "  no parameters");
        }
        writeln!(
            f,
            "  {:<20} {:>5} {:>4} {:>6} {:>8} {:<24} {:<8} {:>6}",
            "Name", "Index", "Mask", "RwMask", "Register", "SysValue", "Format", "Stream"
        )?;
        for e in &self.elements {
            writeln!(
                f,
                "  {:<20} {:>5} {:>4} {:>6} {:>8} {:<24} {:<8} {:>6}",
                e.name,
                e.semantic_index,
                mask_text(e.mask),
                mask_text(e.rw_mask),
                e.register,
                e.system_value.to_string(),
                e.component_type.to_string(),
                e.stream
            )?;
        }
        Ok(())
    }
}

fn mask_text(mask: u8) -> String {
    (0..4)
        .map(|i| {
            if mask & (1 << i) != 0 {
                ['x', 'y', 'z', 'w'][i]
            } else {
                ' '
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(name: &str, register: u32, sv: SystemValue) -> SignatureElement<'_> {
        SignatureElement {
            stream: 0,
            name,
            name_offset: 0,
            semantic_index: 0,
            system_value: sv,
            component_type: ComponentType::Float32,
            register,
            mask: 0xf,
            rw_mask: 0,
            pad: 0,
            min_precision: MinPrecision::Default,
        }
    }

    #[test]
    fn builder_lays_out_names_in_metadata_order_and_sorts_rows() {
        let mut b = SignatureBuilder::new(ValidatorVersion::new(1, 8));
        let tex = b.add_name("TEXCOORD", false);
        let pos = b.add_name("SV_Position", true);
        let tex2 = b.add_name("TEXCOORD", false);
        assert_eq!(tex, tex2);
        b.push(tex, element("", 1, SystemValue::Undefined));
        b.push(pos, element("", 0, SystemValue::Position));
        let sig = b.finish();
        assert_eq!(sig.elements[0].name, "SV_Position");
        assert_eq!(sig.elements[0].name_offset, 8 + 64 + 9);
        assert_eq!(sig.elements[1].name, "TEXCOORD");
        assert_eq!(sig.elements[1].name_offset, 8 + 64);
        let bytes = sig
            .write(FourCC::OSG1, ValidatorVersion::new(1, 8))
            .unwrap();
        assert_eq!(bytes.len(), (8 + 64 + 9 + 12usize).div_ceil(4) * 4);
        let back = Signature::parse(&bytes, 0, FourCC::OSG1).unwrap();
        assert_eq!(back, sig);
        assert_eq!(
            back.write(FourCC::OSG1, ValidatorVersion::new(1, 8))
                .unwrap(),
            bytes
        );
    }

    #[test]
    fn before_1_7_only_system_values_share_and_size_is_unaligned() {
        let v = ValidatorVersion::new(1, 6);
        let mut b = SignatureBuilder::new(v);
        let a = b.add_name("TEXCOORD", false);
        let a2 = b.add_name("TEXCOORD", false);
        let t = b.add_name("SV_Target", true);
        let t2 = b.add_name("SV_Target", true);
        assert_ne!(a, a2);
        assert_eq!(t, t2);
        b.push(a, element("", 0, SystemValue::Undefined));
        let sig = b.finish();
        assert_eq!(sig.extra_names.len(), 2);
        let bytes = sig.write(FourCC::ISG1, v).unwrap();
        // The names of row-less elements are still laid out, and nothing pads the end.
        assert_eq!(bytes.len(), 8 + 32 + 9 + 9 + 10);
        assert_eq!(Signature::parse(&bytes, 0, FourCC::ISG1).unwrap(), sig);
    }

    #[test]
    fn empty_signature_is_the_eight_byte_form() {
        let sig = Signature {
            elements: vec![],
            extra_names: vec![],
        };
        let bytes = sig
            .write(FourCC::ISG1, ValidatorVersion::new(1, 8))
            .unwrap();
        assert_eq!(bytes, [0, 0, 0, 0, 8, 0, 0, 0]);
        assert_eq!(Signature::parse(&bytes, 0, FourCC::ISG1).unwrap(), sig);
    }

    #[test]
    fn inconsistent_offsets_are_refused() {
        let mut e = element("A", 0, SystemValue::Undefined);
        e.name_offset = 50;
        let sig = Signature {
            elements: vec![e],
            extra_names: vec![],
        };
        let err = sig
            .write(FourCC::ISG1, ValidatorVersion::new(1, 8))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Invalid);
    }

    #[test]
    fn parse_errors_name_the_offset() {
        let mut bytes = vec![1, 0, 0, 0, 8, 0, 0, 0];
        bytes.extend_from_slice(&[0; 32]);
        bytes[12] = 200; // name offset out of range
        let err = Signature::parse(&bytes, 1000, FourCC::ISG1).unwrap_err();
        assert_eq!(err.offset(), 1012);
        let bytes = [5, 0, 0, 0, 8, 0, 0, 0];
        assert_eq!(
            Signature::parse(&bytes, 0, FourCC::ISG1)
                .unwrap_err()
                .kind(),
            ErrorKind::Truncated
        );
    }
}
