#include "textflag.h"

// func prefetchLines(b []byte)
TEXT ·prefetchLines(SB), NOSPLIT, $0-24
	MOVQ b_base+0(FP), AX
	MOVQ b_len+8(FP), CX
	ADDQ AX, CX
	ANDQ $~63, AX

loop:
	CMPQ AX, CX
	JAE  done
	PREFETCHT0 (AX)
	ADDQ $64, AX
	JMP  loop

done:
	RET
