; Found while reviewing the signature checks: an element whose columns run past the fourth (two
; columns from column 3; the signature metadata holds any start column up to 127). It became a
; `vec2` variable with `Component 3`, which SPIR-V rejects (a location has four components); the
; translator refuses the signature element.
target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float 1.0)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float 2.0)
  ret void
}

declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

attributes #1 = { nounwind }

!dx.version = !{!0}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.entryPoints = !{!3}

!0 = !{i32 1, i32 0}
!1 = !{i32 1, i32 8}
!2 = !{!"vs", i32 6, i32 0}
!3 = !{void ()* @main, !"main", !4, null, null}
!4 = !{null, !8, null}
!8 = !{!9}
!9 = !{i32 0, !"TEXCOORD", i8 9, i8 0, !10, i8 2, i32 1, i8 2, i32 0, i8 3, null}
!10 = !{i32 0}
