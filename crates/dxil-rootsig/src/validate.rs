//! D3D12's root signature rules (DXC's `DxilRootSignatureValidator.cpp`, the flag rules of the
//! D3D12 documentation as LLVM's `RootSignatureValidations.cpp` encodes them, and the 64-DWORD
//! cost limit of `D3D12_MAX_ROOT_COST`).
//!
//! Validation collects every problem instead of stopping at the first, and names the root
//! parameter, descriptor range or static sampler each one is about.

use crate::model::*;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt;

/// Options of [`validate`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValidationOptions {
    /// Accept register spaces `0xFFFFFFF0..=0xFFFFFFFF` (DXC's `bAllowReservedRegisterSpace`;
    /// only system-generated root signatures use them).
    pub allow_reserved_register_spaces: bool,
}

/// What a validation error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Location {
    /// The root signature as a whole (flags, cost).
    RootSignature,
    /// Root parameter `[index]`.
    Parameter(u32),
    /// Descriptor range `[range]` of the table in root parameter `[parameter]`.
    Range {
        /// Root parameter index.
        parameter: u32,
        /// Range index within the table.
        range: u32,
    },
    /// Static sampler `[index]`.
    StaticSampler(u32),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::RootSignature => f.write_str("root signature"),
            Location::Parameter(i) => write!(f, "root parameter [{i}]"),
            Location::Range { parameter, range } => {
                write!(f, "root parameter [{parameter}] range [{range}]")
            }
            Location::StaticSampler(i) => write!(f, "static sampler [{i}]"),
        }
    }
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ValidationError {
    /// What the error is about.
    pub location: Location,
    /// The rule that is broken, with the offending values.
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// All rules a root signature breaks, in the order the checks found them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ValidationErrors(pub Vec<ValidationError>);

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}

/// Overlap reports beyond this many are summarized; a hostile blob can hold tens of thousands
/// of overlapping ranges.
const MAX_OVERLAP_REPORTS: usize = 64;

/// A register interval some root signature element binds.
#[derive(Clone, Copy)]
struct Interval {
    class: RegisterClass,
    space: u32,
    lo: u32,
    hi: u32,
    visibility: ShaderVisibility,
    location: Location,
}

struct Checker {
    errors: Vec<ValidationError>,
    intervals: Vec<Interval>,
    options: ValidationOptions,
}

impl Checker {
    fn error(&mut self, location: Location, message: impl Into<String>) {
        self.errors.push(ValidationError {
            location,
            message: message.into(),
        });
    }

    fn space(&mut self, location: Location, space: u32) {
        if !self.options.allow_reserved_register_spaces && space >= RESERVED_REGISTER_SPACE_START {
            self.error(
                location,
                format!(
                    "RegisterSpace {space:#x} is reserved for system use \
                     (spaces {RESERVED_REGISTER_SPACE_START:#x}..=0xffffffff)"
                ),
            );
        }
    }

    fn bind(
        &mut self,
        location: Location,
        class: RegisterClass,
        space: u32,
        lo: u32,
        hi: u32,
        visibility: ShaderVisibility,
    ) {
        self.space(location, space);
        self.intervals.push(Interval {
            class,
            space,
            lo,
            hi,
            visibility,
            location,
        });
    }

    fn range_flags(&mut self, location: Location, range: &DescriptorRange) {
        let flags = range.flags;
        type F = DescriptorRangeFlags;
        if flags.unknown_bits() != 0 {
            self.error(
                location,
                format!(
                    "unsupported descriptor range flag bits {:#x}",
                    flags.unknown_bits()
                ),
            );
        }
        let data = flags & F::DATA_MASK;
        if range.range_type == RangeType::Sampler {
            if !data.is_empty() {
                self.error(
                    location,
                    format!(
                        "sampler ranges cannot have DATA_* flags, since samplers point to no data \
                         (flags {flags:?})"
                    ),
                );
            }
        } else if data.bits().count_ones() > 1 {
            self.error(
                location,
                format!("at most one DATA_* flag may be set (flags {flags:?})"),
            );
        }
        if flags.contains(F::DESCRIPTORS_VOLATILE) && flags.contains(F::DATA_STATIC) {
            self.error(
                location,
                format!(
                    "DESCRIPTORS_VOLATILE cannot be combined with DATA_STATIC (flags {flags:?}); \
                     DATA_STATIC_WHILE_SET_AT_EXECUTE can be"
                ),
            );
        }
        if flags.contains(F::DESCRIPTORS_VOLATILE)
            && flags.contains(F::DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS)
        {
            self.error(
                location,
                format!(
                    "DESCRIPTORS_VOLATILE and DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS are \
                     mutually exclusive (flags {flags:?})"
                ),
            );
        }
    }

    fn table(&mut self, index: u32, visibility: ShaderVisibility, table: &DescriptorTable) {
        let mut has_samplers = false;
        let mut has_resources = false;
        let mut mixing_reported = false;
        // Where an APPEND range would start; 2^32 after an unbounded range.
        let mut append_start: u64 = 0;
        for (r, range) in table.ranges.iter().enumerate() {
            let location = Location::Range {
                parameter: index,
                range: r as u32,
            };
            if range.range_type == RangeType::Sampler {
                has_samplers = true;
            } else {
                has_resources = true;
            }
            if has_samplers && has_resources && !mixing_reported {
                mixing_reported = true;
                self.error(
                    location,
                    "samplers cannot be mixed with other resource types in a descriptor table",
                );
            }
            self.range_flags(location, range);
            if range.num_descriptors == 0 {
                self.error(location, "NumDescriptors cannot be 0");
                continue;
            }
            let start = if range.offset_in_descriptors_from_table_start == APPEND {
                append_start
            } else {
                u64::from(range.offset_in_descriptors_from_table_start)
            };
            if start > u64::from(u32::MAX) {
                self.error(
                    location,
                    "cannot append a range (DESCRIPTOR_RANGE_OFFSET_APPEND) after an unbounded range",
                );
            }
            if range.is_unbounded() {
                append_start = u64::from(u32::MAX) + 1;
            } else {
                let count = u64::from(range.num_descriptors);
                if u64::from(range.base_shader_register) + count - 1 > u64::from(u32::MAX) {
                    self.error(
                        location,
                        format!(
                            "shader register range overflows: BaseShaderRegister={}, \
                             NumDescriptors={}",
                            range.base_shader_register, range.num_descriptors
                        ),
                    );
                }
                if start <= u64::from(u32::MAX) && start + count - 1 > u64::from(u32::MAX) {
                    self.error(
                        location,
                        format!(
                            "descriptor range overflows the table: offset {start} + NumDescriptors {} \
                             passes 0xffffffff",
                            range.num_descriptors
                        ),
                    );
                }
                append_start = start + count;
            }
            self.bind(
                location,
                range.range_type,
                range.register_space,
                range.base_shader_register,
                range.last_register(),
                visibility,
            );
        }
    }

    fn root_descriptor(&mut self, location: Location, d: &RootDescriptor) {
        let flags = d.flags;
        if flags.unknown_bits() != 0 {
            self.error(
                location,
                format!(
                    "unsupported root descriptor flag bits {:#x}",
                    flags.unknown_bits()
                ),
            );
        }
        if (flags & RootDescriptorFlags::VALID).bits().count_ones() > 1 {
            self.error(
                location,
                format!("at most one DATA_* flag may be set (flags {flags:?})"),
            );
        }
    }

    fn sampler(&mut self, index: u32, version: Version, s: &StaticSampler) {
        let location = Location::StaticSampler(index);
        if s.mip_lod_bias.is_nan() || !(-16.0..=15.99).contains(&s.mip_lod_bias) {
            self.error(
                location,
                format!(
                    "MipLODBias must be in the range [-16, 15.99]; {} specified",
                    s.mip_lod_bias
                ),
            );
        }
        if s.max_anisotropy > 16 {
            self.error(
                location,
                format!(
                    "MaxAnisotropy must be in the range [0, 16]; {} specified",
                    s.max_anisotropy
                ),
            );
        }
        if s.filter.is_comparison() && s.comparison_func == ComparisonFunc::None {
            self.error(
                location,
                format!("comparison filter {} needs a ComparisonFunc", s.filter),
            );
        }
        if s.min_lod.is_nan() {
            self.error(location, "MinLOD is NaN");
        }
        if s.max_lod.is_nan() {
            self.error(location, "MaxLOD is NaN");
        }
        if version != Version::V1_2 && !s.flags.is_empty() {
            self.error(
                location,
                format!(
                    "static sampler flags need version 1.2 (this is {}; flags {:?})",
                    version.short_name(),
                    s.flags
                ),
            );
        } else if s.flags.unknown_bits() != 0 {
            self.error(
                location,
                format!(
                    "unsupported sampler flag bits {:#x}",
                    s.flags.unknown_bits()
                ),
            );
        }
        self.bind(
            location,
            RangeType::Sampler,
            s.register_space,
            s.shader_register,
            s.shader_register,
            s.shader_visibility,
        );
    }

    fn overlaps(&mut self) {
        let mut intervals = std::mem::take(&mut self.intervals);
        intervals.sort_by_key(|i| (i.class, i.space, i.lo, i.hi, i.location));
        let mut pairs: BTreeSet<(Location, Location)> = BTreeSet::new();
        let mut dropped = 0usize;
        // Two bindings conflict when they share class and space, their registers intersect
        // and some stage sees both: equal visibilities, or one of them is ALL. One sweep per
        // stage over the intervals that stage sees finds every such pair's later member.
        for stage in ShaderVisibility::ALL {
            let mut widest: Option<&Interval> = None;
            for current in intervals
                .iter()
                .filter(|i| i.visibility == ShaderVisibility::All || i.visibility == *stage)
            {
                match widest {
                    Some(w) if w.class == current.class && w.space == current.space => {
                        if current.lo <= w.hi {
                            if pairs.len() < MAX_OVERLAP_REPORTS {
                                if pairs.insert((w.location, current.location)) {
                                    self.report_overlap(w, current);
                                }
                            } else if !pairs.contains(&(w.location, current.location)) {
                                dropped += 1;
                            }
                        }
                        if current.hi > w.hi {
                            widest = Some(current);
                        }
                    }
                    _ => widest = Some(current),
                }
            }
        }
        if dropped > 0 {
            self.error(
                Location::RootSignature,
                format!("{dropped} more overlapping register ranges not listed"),
            );
        }
    }

    fn report_overlap(&mut self, earlier: &Interval, later: &Interval) {
        let letter = later.class.register_letter();
        let span = |i: &Interval| {
            if i.lo == i.hi {
                format!("{letter}{}", i.lo)
            } else if i.hi == u32::MAX {
                format!("{letter}{}..(unbounded)", i.lo)
            } else {
                format!("{letter}{}..{letter}{}", i.lo, i.hi)
            }
        };
        let vis = |v: ShaderVisibility| v.d3d_name().trim_start_matches("D3D12_SHADER_VISIBILITY_");
        self.error(
            later.location,
            format!(
                "registers {} (space {}, visibility {}) overlap {} of {} (visibility {})",
                span(later),
                later.space,
                vis(later.visibility),
                span(earlier),
                earlier.location,
                vis(earlier.visibility),
            ),
        );
    }
}

/// Checks `rs` against D3D12's rules. Returns every broken rule.
///
/// Checked: root, range, root-descriptor and sampler flag bits and combinations (at most one
/// `DATA_*`; none on sampler ranges; `DATA_STATIC` or `..._KEEPING_BUFFER_BOUNDS_CHECKS` not with
/// `DESCRIPTORS_VOLATILE`); per-version invariants (1.0 carries only the implied flags, sampler
/// flags need 1.2); sampler/resource mixing in a table; `NumDescriptors != 0`; no `APPEND` after
/// an unbounded range; register and table-offset overflow; reserved register spaces;
/// overlapping registers of one class and space visible to a common stage; static sampler
/// values (`MipLODBias` in [-16, 15.99], `MaxAnisotropy` <= 16, LODs not NaN, a comparison
/// function for comparison filters); total cost <= 64 DWORDs for global root signatures.
pub fn validate(rs: &RootSignature, options: &ValidationOptions) -> Result<(), ValidationErrors> {
    let mut c = Checker {
        errors: Vec::new(),
        intervals: Vec::new(),
        options: *options,
    };
    if rs.flags.unknown_bits() != 0 {
        c.error(
            Location::RootSignature,
            format!(
                "unsupported root signature flag bits {:#x}",
                rs.flags.unknown_bits()
            ),
        );
    }
    for (i, parameter) in rs.parameters.iter().enumerate() {
        let index = i as u32;
        let location = Location::Parameter(index);
        let visibility = parameter.shader_visibility;
        match &parameter.kind {
            RootParameterKind::DescriptorTable(table) => {
                if rs.version == Version::V1_0 {
                    for (r, range) in table.ranges.iter().enumerate() {
                        if range.flags != DescriptorRangeFlags::implied_v1_0(range.range_type) {
                            c.error(
                                Location::Range {
                                    parameter: index,
                                    range: r as u32,
                                },
                                format!("version 1.0 cannot carry range flags {:?}", range.flags),
                            );
                        }
                    }
                }
                c.table(index, visibility, table);
            }
            RootParameterKind::Constants(k) => {
                c.bind(
                    location,
                    RangeType::Cbv,
                    k.register_space,
                    k.shader_register,
                    k.shader_register,
                    visibility,
                );
            }
            RootParameterKind::Cbv(d) | RootParameterKind::Srv(d) | RootParameterKind::Uav(d) => {
                if rs.version == Version::V1_0 && d.flags != RootDescriptorFlags::IMPLIED_V1_0 {
                    c.error(
                        location,
                        format!(
                            "version 1.0 cannot carry root descriptor flags {:?}",
                            d.flags
                        ),
                    );
                }
                c.root_descriptor(location, d);
                let class = parameter
                    .kind
                    .root_descriptor()
                    .map_or(RangeType::Cbv, |(class, _)| class);
                c.bind(
                    location,
                    class,
                    d.register_space,
                    d.shader_register,
                    d.shader_register,
                    visibility,
                );
            }
        }
    }
    for (i, sampler) in rs.static_samplers.iter().enumerate() {
        c.sampler(i as u32, rs.version, sampler);
    }
    c.overlaps();
    let cost = rs.cost();
    if !rs.is_local() && cost > u64::from(MAX_ROOT_COST) {
        c.error(
            Location::RootSignature,
            format!(
                "cost is {cost} DWORDs, over the limit of {MAX_ROOT_COST} (a table costs 1, a root \
                 constant 1 per value, a root descriptor 2)"
            ),
        );
    }
    if c.errors.is_empty() {
        Ok(())
    } else {
        Err(ValidationErrors(c.errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlsl::{ParseOptions, parse_hlsl};

    fn errors(text: &str) -> Vec<String> {
        let rs =
            parse_hlsl(text, &ParseOptions::default()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        match validate(&rs, &ValidationOptions::default()) {
            Ok(()) => Vec::new(),
            Err(e) => e.0.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn valid_signatures_pass() {
        assert_eq!(errors(""), Vec::<String>::new());
        assert_eq!(
            errors(
                "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), CBV(b0), RootConstants(num32BitConstants=4, b1), \
                 DescriptorTable(SRV(t0, numDescriptors=unbounded), visibility=SHADER_VISIBILITY_PIXEL), \
                 DescriptorTable(Sampler(s0, numDescriptors=16), visibility=SHADER_VISIBILITY_PIXEL), UAV(u0), \
                 StaticSampler(s16, filter=FILTER_MIN_MAG_MIP_LINEAR)"
            ),
            Vec::<String>::new()
        );
        // Same registers, disjoint visibilities: fine.
        assert_eq!(
            errors(
                "DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_PIXEL), \
                 DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_VERTEX)"
            ),
            Vec::<String>::new()
        );
    }

    #[test]
    fn table_rules() {
        assert_eq!(
            errors("DescriptorTable(SRV(t0), Sampler(s0))"),
            vec![
                "root parameter [0] range [1]: samplers cannot be mixed with other resource types in a descriptor table"
            ]
        );
        assert_eq!(
            errors("DescriptorTable(SRV(t0, numDescriptors=0))"),
            vec!["root parameter [0] range [0]: NumDescriptors cannot be 0"]
        );
        assert_eq!(
            errors("DescriptorTable(SRV(t0, numDescriptors=unbounded), SRV(t0, space=1))"),
            vec![
                "root parameter [0] range [1]: cannot append a range (DESCRIPTOR_RANGE_OFFSET_APPEND) after an unbounded range"
            ]
        );
        assert_eq!(
            errors("DescriptorTable(UAV(u4294967295, numDescriptors=2))"),
            vec![
                "root parameter [0] range [0]: shader register range overflows: BaseShaderRegister=4294967295, NumDescriptors=2"
            ]
        );
        assert_eq!(
            errors("DescriptorTable(UAV(u0, numDescriptors=3, offset=4294967294))"),
            vec![
                "root parameter [0] range [0]: descriptor range overflows the table: offset 4294967294 + NumDescriptors 3 passes 0xffffffff"
            ]
        );
    }

    #[test]
    fn flag_rules() {
        assert_eq!(
            errors("DescriptorTable(Sampler(s0, flags=DATA_VOLATILE))"),
            vec![
                "root parameter [0] range [0]: sampler ranges cannot have DATA_* flags, since samplers point to no data (flags DescriptorRangeFlags(D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE))"
            ]
        );
        let e = errors(
            "DescriptorTable(CBV(b0, flags=DATA_VOLATILE | DATA_STATIC | DESCRIPTORS_VOLATILE))",
        );
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(e[0].contains("at most one DATA_* flag"), "{e:?}");
        assert!(
            e[1].contains("cannot be combined with DATA_STATIC"),
            "{e:?}"
        );
        let e = errors(
            "DescriptorTable(SRV(t0, flags=DESCRIPTORS_VOLATILE | DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS))",
        );
        assert!(e[0].contains("mutually exclusive"), "{e:?}");
        let e = errors("CBV(b0, flags=DATA_VOLATILE | DATA_STATIC)");
        assert_eq!(
            e,
            vec![
                "root parameter [0]: at most one DATA_* flag may be set (flags RootDescriptorFlags(D3D12_ROOT_DESCRIPTOR_FLAG_DATA_VOLATILE | D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC))"
            ]
        );
        let mut rs = parse_hlsl("", &ParseOptions::default()).expect("parses");
        rs.flags = RootSignatureFlags(0x1000);
        let e = validate(&rs, &ValidationOptions::default()).expect_err("invalid");
        assert_eq!(
            e.to_string(),
            "root signature: unsupported root signature flag bits 0x1000"
        );
    }

    #[test]
    fn overlaps_name_both_sides() {
        assert_eq!(
            errors(
                "DescriptorTable(SRV(t0, numDescriptors=4), visibility=SHADER_VISIBILITY_PIXEL), SRV(t2)"
            ),
            vec![
                "root parameter [1]: registers t2 (space 0, visibility ALL) overlap t0..t3 of root parameter [0] range [0] (visibility PIXEL)"
            ]
        );
        assert_eq!(
            errors(
                "RootConstants(num32BitConstants=1, b3), DescriptorTable(CBV(b0, numDescriptors=unbounded))"
            ),
            vec![
                "root parameter [0]: registers b3 (space 0, visibility ALL) overlap b0..(unbounded) of root parameter [1] range [0] (visibility ALL)"
            ]
        );
        // Different spaces or classes never overlap.
        assert_eq!(
            errors("SRV(t0), UAV(u0), CBV(b0, space=1), CBV(b0)"),
            Vec::<String>::new()
        );
        assert_eq!(
            errors("StaticSampler(s0), DescriptorTable(Sampler(s0))").len(),
            1
        );
    }

    #[test]
    fn reserved_spaces_and_cost() {
        assert_eq!(
            errors("CBV(b0, space=4294967280)"),
            vec![
                "root parameter [0]: RegisterSpace 0xfffffff0 is reserved for system use (spaces 0xfffffff0..=0xffffffff)"
            ]
        );
        let rs = parse_hlsl("CBV(b0, space=4294967280)", &ParseOptions::default()).expect("parses");
        let allow = ValidationOptions {
            allow_reserved_register_spaces: true,
        };
        assert_eq!(validate(&rs, &allow), Ok(()));
        assert_eq!(
            errors("RootConstants(num32BitConstants=64, b0)"),
            Vec::<String>::new()
        );
        assert_eq!(
            errors("RootConstants(num32BitConstants=63, b0), CBV(b1)"),
            vec![
                "root signature: cost is 65 DWORDs, over the limit of 64 (a table costs 1, a root constant 1 per value, a root descriptor 2)"
            ]
        );
        // Local root signatures are bounded by the shader record size instead.
        assert_eq!(
            errors("RootFlags(LOCAL_ROOT_SIGNATURE), RootConstants(num32BitConstants=100, b0)"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn sampler_rules() {
        let e = errors("StaticSampler(s0, mipLODBias=16, maxAnisotropy=17)");
        assert_eq!(
            e,
            vec![
                "static sampler [0]: MipLODBias must be in the range [-16, 15.99]; 16 specified",
                "static sampler [0]: MaxAnisotropy must be in the range [0, 16]; 17 specified"
            ]
        );
        let mut rs = parse_hlsl(
            "StaticSampler(s0, filter=FILTER_COMPARISON_ANISOTROPIC)",
            &ParseOptions::default(),
        )
        .expect("parses");
        assert_eq!(validate(&rs, &ValidationOptions::default()), Ok(()));
        rs.static_samplers[0].comparison_func = ComparisonFunc::None;
        rs.static_samplers[0].max_lod = f32::NAN;
        rs.static_samplers[0].flags = SamplerFlags::UINT_BORDER_COLOR;
        let e = validate(&rs, &ValidationOptions::default()).expect_err("invalid");
        assert_eq!(e.0.len(), 3, "{e}");
        rs.version = Version::V1_2;
        rs.static_samplers[0].flags = SamplerFlags(0x10);
        let e = validate(&rs, &ValidationOptions::default()).expect_err("invalid");
        assert!(
            e.to_string().contains("unsupported sampler flag bits 0x10"),
            "{e}"
        );
    }

    #[test]
    fn version_1_0_invariants() {
        let mut rs = parse_hlsl("CBV(b0)", &ParseOptions::version(Version::V1_0)).expect("parses");
        assert_eq!(validate(&rs, &ValidationOptions::default()), Ok(()));
        if let RootParameterKind::Cbv(d) = &mut rs.parameters[0].kind {
            d.flags = RootDescriptorFlags::NONE;
        }
        let e = validate(&rs, &ValidationOptions::default()).expect_err("invalid");
        assert!(e.to_string().contains("version 1.0 cannot carry"), "{e}");
    }
}
