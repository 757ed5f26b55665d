//! `OpType*` decoded into a small copyable form; lists (struct members, function
//! parameters) live in the module's `type_lists` pool.

use spirv::{Dim, Op, StorageClass};

use super::{Inst, Module};
use crate::error::{Result, malformed, unsupported};

/// `OpTypeImage`'s operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageType {
    pub sampled_type: u32,
    pub dim: Dim,
    /// 0 no depth, 1 depth, 2 unknown.
    pub depth: u8,
    pub arrayed: bool,
    pub ms: bool,
    /// 0 unknown, 1 sampled, 2 storage.
    pub sampled: u8,
    pub format: spirv::ImageFormat,
}

/// A decoded type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    None,
    Void,
    Bool,
    Int {
        width: u8,
        signed: bool,
    },
    Float {
        width: u8,
    },
    Vector {
        elem: u32,
        n: u8,
    },
    Matrix {
        col: u32,
        n: u8,
    },
    /// `len` is the id of the length constant.
    Array {
        elem: u32,
        len: u32,
    },
    RuntimeArray {
        elem: u32,
    },
    /// Member type ids: `(start, count)` in `type_lists`.
    Struct {
        members: (u32, u32),
    },
    Pointer {
        class: StorageClass,
        pointee: u32,
    },
    /// Parameter type ids in `type_lists`.
    Function {
        ret: u32,
        params: (u32, u32),
    },
    Image(ImageType),
    Sampler,
    SampledImage {
        image: u32,
    },
    AccelerationStructure,
    RayQuery,
    /// A type this translator has no use for (kernel types, cooperative matrices).
    Other(u16),
}

impl Type {
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Bool | Type::Int { .. } | Type::Float { .. })
    }
}

fn push_list(m: &mut Module<'_>, items: &[u32]) -> Result<(u32, u32)> {
    let start = u32::try_from(m.type_lists.len()).map_err(|_| malformed("too many types"))?;
    m.type_lists.extend_from_slice(items);
    Ok((start, items.len() as u32))
}

pub(super) fn decode(m: &mut Module<'_>, inst: &Inst<'_>) -> Result<Type> {
    let op = inst.op().unwrap_or(Op::Nop);
    let small = |v: u32, what: &str| -> Result<u8> {
        u8::try_from(v).map_err(|_| malformed(format!("{what} {v} out of range")))
    };
    Ok(match op {
        Op::TypeVoid => Type::Void,
        Op::TypeBool => Type::Bool,
        Op::TypeInt => {
            let width = inst.word(1)?;
            if !matches!(width, 8 | 16 | 32 | 64) {
                return Err(unsupported(format!("{width}-bit integers")));
            }
            Type::Int {
                width: width as u8,
                signed: inst.word(2)? != 0,
            }
        }
        Op::TypeFloat => {
            let width = inst.word(1)?;
            if !matches!(width, 16 | 32 | 64) {
                return Err(unsupported(format!("{width}-bit floats")));
            }
            if inst.operand_count() > 2 {
                return Err(unsupported("floating-point encodings other than IEEE"));
            }
            Type::Float { width: width as u8 }
        }
        Op::TypeVector => {
            let n = inst.word(2)?;
            if !(2..=4).contains(&n) {
                return Err(unsupported(format!("vectors of {n} components")));
            }
            Type::Vector {
                elem: inst.word(1)?,
                n: small(n, "vector size")?,
            }
        }
        Op::TypeMatrix => {
            let n = inst.word(2)?;
            if !(2..=4).contains(&n) {
                return Err(malformed(format!("matrix of {n} columns")));
            }
            Type::Matrix {
                col: inst.word(1)?,
                n: n as u8,
            }
        }
        Op::TypeArray => Type::Array {
            elem: inst.word(1)?,
            len: inst.word(2)?,
        },
        Op::TypeRuntimeArray => Type::RuntimeArray {
            elem: inst.word(1)?,
        },
        Op::TypeStruct => {
            let members = inst.rest(1).to_vec();
            Type::Struct {
                members: push_list(m, &members)?,
            }
        }
        Op::TypePointer => {
            let class = StorageClass::from_u32(inst.word(1)?)
                .ok_or_else(|| malformed("unknown storage class"))?;
            Type::Pointer {
                class,
                pointee: inst.word(2)?,
            }
        }
        Op::TypeFunction => {
            let params = inst.rest(2).to_vec();
            Type::Function {
                ret: inst.word(1)?,
                params: push_list(m, &params)?,
            }
        }
        Op::TypeImage => Type::Image(ImageType {
            sampled_type: inst.word(1)?,
            dim: Dim::from_u32(inst.word(2)?).ok_or_else(|| malformed("unknown image dim"))?,
            depth: small(inst.word(3)?, "image depth")?,
            arrayed: inst.word(4)? != 0,
            ms: inst.word(5)? != 0,
            sampled: small(inst.word(6)?, "image sampled")?,
            format: spirv::ImageFormat::from_u32(inst.word(7)?)
                .ok_or_else(|| malformed("unknown image format"))?,
        }),
        Op::TypeSampler => Type::Sampler,
        Op::TypeSampledImage => Type::SampledImage {
            image: inst.word(1)?,
        },
        Op::TypeAccelerationStructureKHR => Type::AccelerationStructure,
        Op::TypeRayQueryKHR => Type::RayQuery,
        _ => Type::Other(inst.opcode),
    })
}
