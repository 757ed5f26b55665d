//! LLVM 3.7 bitcode block ids and record codes (`*_BLOCK_ID` and `*_CODE_*` of LLVM's
//! `LLVMBitCodes.h`), the one home the reader, the writer and the bitstream dump's names take them
//! from.

/// Declares each code as a constant and lists it with its name in `NAMES`, so that a code and
/// the name a dump prints for it are written once.
macro_rules! record_codes {
    ($($name:ident = $code:literal,)*) => {
        $(pub const $name: u32 = $code;)*

        /// Every code with its name, for dumps.
        pub const NAMES: &[(u32, &str)] = &[$(($name, stringify!($name)),)*];
    };
}

/// Block ids, with the names a dump prints for them (LLVM's `*_BLOCK_ID` spelling) and the
/// shorter ones errors use (the constant's own name).
pub mod block {
    macro_rules! block_ids {
        ($($name:ident = $id:literal => $dump:literal,)*) => {
            $(pub const $name: u32 = $id;)*

            /// Every block id with its dump name.
            pub const NAMES: &[(u32, &str)] = &[$(($name, $dump),)*];

            /// The constant's name of a block id, for errors.
            pub fn short_name(id: u32) -> Option<&'static str> {
                match id {
                    $($id => Some(stringify!($name)),)*
                    _ => None,
                }
            }
        };
    }

    block_ids! {
        BLOCKINFO = 0 => "BLOCKINFO",
        MODULE = 8 => "MODULE_BLOCK",
        PARAMATTR = 9 => "PARAMATTR_BLOCK",
        PARAMATTR_GROUP = 10 => "PARAMATTR_GROUP_BLOCK",
        CONSTANTS = 11 => "CONSTANTS_BLOCK",
        FUNCTION = 12 => "FUNCTION_BLOCK",
        VALUE_SYMTAB = 14 => "VALUE_SYMTAB",
        METADATA = 15 => "METADATA_BLOCK",
        METADATA_ATTACHMENT = 16 => "METADATA_ATTACHMENT",
        TYPE_NEW = 17 => "TYPE_BLOCK_NEW",
        USELIST = 18 => "USELIST_BLOCK",
    }
}

/// Records of the module block.
pub mod module {
    record_codes! {
        VERSION = 1,
        TRIPLE = 2,
        DATALAYOUT = 3,
        ASM = 4,
        SECTIONNAME = 5,
        DEPLIB = 6,
        GLOBALVAR = 7,
        FUNCTION = 8,
        ALIAS_OLD = 9,
        PURGEVALS = 10,
        GCNAME = 11,
        COMDAT = 12,
        VSTOFFSET = 13,
        ALIAS = 14,
    }
}

/// Records of the attribute-list block (`PARAMATTR_CODE_*`).
pub mod paramattr {
    record_codes! {
        ENTRY_OLD = 1,
        ENTRY = 2,
    }
}

/// Records of the attribute-group block (`PARAMATTR_GRP_CODE_*`).
pub mod paramattr_group {
    record_codes! {
        ENTRY = 3,
    }
}

/// Records of the type block (`TYPE_CODE_*`).
pub mod types {
    record_codes! {
        NUMENTRY = 1,
        VOID = 2,
        FLOAT = 3,
        DOUBLE = 4,
        LABEL = 5,
        OPAQUE = 6,
        INTEGER = 7,
        POINTER = 8,
        FUNCTION_OLD = 9,
        HALF = 10,
        ARRAY = 11,
        VECTOR = 12,
        X86_FP80 = 13,
        FP128 = 14,
        PPC_FP128 = 15,
        METADATA = 16,
        X86_MMX = 17,
        STRUCT_ANON = 18,
        STRUCT_NAME = 19,
        STRUCT_NAMED = 20,
        FUNCTION = 21,
    }
}

/// Records of a constants block (`CST_CODE_*`).
pub mod constants {
    record_codes! {
        SETTYPE = 1,
        NULL = 2,
        UNDEF = 3,
        INTEGER = 4,
        WIDE_INTEGER = 5,
        FLOAT = 6,
        AGGREGATE = 7,
        STRING = 8,
        CSTRING = 9,
        CE_BINOP = 10,
        CE_CAST = 11,
        CE_GEP = 12,
        CE_SELECT = 13,
        CE_EXTRACTELT = 14,
        CE_INSERTELT = 15,
        CE_SHUFFLEVEC = 16,
        CE_CMP = 17,
        INLINEASM_OLD = 18,
        CE_SHUFVEC_EX = 19,
        CE_INBOUNDS_GEP = 20,
        BLOCKADDRESS = 21,
        DATA = 22,
        INLINEASM = 23,
    }
}

/// Records of a metadata or metadata-attachment block (`METADATA_*`).
pub mod metadata {
    record_codes! {
        STRING = 1,
        VALUE = 2,
        NODE = 3,
        NAME = 4,
        DISTINCT_NODE = 5,
        KIND = 6,
        LOCATION = 7,
        OLD_NODE = 8,
        OLD_FN_NODE = 9,
        NAMED_NODE = 10,
        ATTACHMENT = 11,
        GENERIC_DEBUG = 12,
        SUBRANGE = 13,
        ENUMERATOR = 14,
        BASIC_TYPE = 15,
        FILE = 16,
        DERIVED_TYPE = 17,
        COMPOSITE_TYPE = 18,
        SUBROUTINE_TYPE = 19,
        COMPILE_UNIT = 20,
        SUBPROGRAM = 21,
        LEXICAL_BLOCK = 22,
        LEXICAL_BLOCK_FILE = 23,
        NAMESPACE = 24,
        TEMPLATE_TYPE = 25,
        TEMPLATE_VALUE = 26,
        GLOBAL_VAR = 27,
        LOCAL_VAR = 28,
        EXPRESSION = 29,
        OBJC_PROPERTY = 30,
        IMPORTED_ENTITY = 31,
    }
}

/// Records of a value symbol table (`VST_CODE_*`).
pub mod value_symtab {
    record_codes! {
        ENTRY = 1,
        BBENTRY = 2,
        FNENTRY = 3,
    }
}

/// Records of a use-list block (`USELIST_CODE_*`).
pub mod uselist {
    record_codes! {
        DEFAULT = 1,
        BB = 2,
    }
}

/// Records of a function block.
pub mod function {
    record_codes! {
        DECLAREBLOCKS = 1,
        INST_BINOP = 2,
        INST_CAST = 3,
        INST_GEP_OLD = 4,
        INST_SELECT = 5,
        INST_EXTRACTELT = 6,
        INST_INSERTELT = 7,
        INST_SHUFFLEVEC = 8,
        INST_CMP = 9,
        INST_RET = 10,
        INST_BR = 11,
        INST_SWITCH = 12,
        INST_INVOKE = 13,
        INST_UNREACHABLE = 15,
        INST_PHI = 16,
        INST_ALLOCA = 19,
        INST_LOAD = 20,
        INST_VAARG = 23,
        INST_STORE_OLD = 24,
        INST_EXTRACTVAL = 26,
        INST_INSERTVAL = 27,
        INST_CMP2 = 28,
        INST_VSELECT = 29,
        INST_INBOUNDS_GEP_OLD = 30,
        INST_INDIRECTBR = 31,
        DEBUG_LOC_AGAIN = 33,
        INST_CALL = 34,
        DEBUG_LOC = 35,
        INST_FENCE = 36,
        INST_CMPXCHG_OLD = 37,
        INST_ATOMICRMW = 38,
        INST_RESUME = 39,
        INST_LANDINGPAD_OLD = 40,
        INST_LOADATOMIC = 41,
        INST_STOREATOMIC_OLD = 42,
        INST_GEP = 43,
        INST_STORE = 44,
        INST_STOREATOMIC = 45,
        INST_CMPXCHG = 46,
        INST_LANDINGPAD = 47,
    }
}
