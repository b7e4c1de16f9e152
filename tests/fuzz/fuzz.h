/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the libFuzzer harnesses of tests/fuzz share.  A harness is one
 * LLVMFuzzerTestOneInput() that hands the input to the real library code
 * (lib/libhs.a, built with the fuzzer's coverage and ASan+UBSan) and then
 * checks what the code promised about its answer, so the fuzzer finds wrong
 * answers as well as crashes: FUZZ_CHECK() prints the broken property with
 * its place and aborts, which libFuzzer reports as a crash and saves the
 * input.  See tests/fuzz/README for running them and adding inputs.
 */
#ifndef HS_FUZZ_H
#define HS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: property broken: %s: ", __FILE__,	\
				__LINE__, #cond);				\
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
			abort();						\
		}								\
	} while (0)

#endif /* HS_FUZZ_H */
