// Host emulation of the few CUDA names encode.cu uses (see emulate.cpp).
#pragma once
