; Found by the translate fuzz target: a pixel shader input of system value kind SV_ClipDistance with
; 4,108,727,276 rows (-186240020 as i32). Counting the clip distances overflowed (a panic with
; overflow checks, a wrapped count under the limit of 8 without); the count saturates and the
; element is refused.
target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
  %1 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %2 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 35, i8 0, i32 undef)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %1)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %1)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float %2)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float %2)
  ret void
}

; Function Attrs: nounwind readnone
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }

!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.viewIdState = !{!4}
!dx.entryPoints = !{!5}

!0 = !{!"dxc(private) 1.9.0.15466 (main, 9a3e225da)"}
!1 = !{i32 35, i32 5}
!2 = !{i32 35, i32 10}
!3 = !{!"ps", i32 6, i32 5}
!4 = !{[7 x i32] [i32 5, i32 4, i32 3, i32 0, i32 0, i32 0, i32 12]}
!5 = !{void ()* @main, !"main", !6, null, !15}
!6 = !{!7, !11, null}
!7 = !{!8}
!8 = !{i32 0, !"SV_ViewID", i8 9, i8 6, !9, i8 2, i32 -186240020, i8 7, i32 0, i8 0, !10}
!9 = !{i32 0, i32 35}
!10 = !{i32 3, i32 35}
!11 = !{!12}
!12 = !{i32 0, !"SV_Target", i8 9, i8 -1, !13, i8 0, i32 35, i8 4, i32 0, i8 0, !14}
!13 = !{i32 0}
!14 = !{i32 3, i32 26}
!15 = !{i32 0, i64 8388607}
