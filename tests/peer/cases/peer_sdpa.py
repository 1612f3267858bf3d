# Adopted from PyTorch: pytorch/pytorch, test/dynamo/test_sdpa.py, at commit
# 0177840842ac4dc27668febdeb42654dade3c04c, BSD-3-Clause (tests/peer/LICENSE-pytorch).
# Taken for torch 2.13.0 and 2.14.1. These tests compile SDPAParams and the SDPA helper
# functions that torch/nn/attention/bias.py registers with torch._dynamo.allow_in_graph in
# call form at import: under install() that registration goes through the guard, so the
# import below comes after the plugin installed it. test_sdpa_kernel_decorator_with_compile
# is left out: it runs a (128, 64, 64, 256) float16 attention on the CPU, minutes per mode.
# Test bodies unchanged; the HardwareClassification import is made optional for 2.13.
# Owner(s): ["module: dynamo"]
import torch._dynamo.test_case
import torch._dynamo.testing
from torch._dynamo.testing import CompileCounter
from torch.backends.cuda import SDPAParams, can_use_flash_attention
from torch.nn.attention import _cur_sdpa_kernel_backends

try:  # torch 2.14 has it; 2.13 does not (the one change to the file: a CI scheduling tag)
    from torch.testing._internal.common_utils import HardwareClassification
except ImportError:
    HardwareClassification = None


class TestSDPA(torch._dynamo.test_case.TestCase):
    if HardwareClassification is not None:
        hw_classification = HardwareClassification.GENERIC

    def assert_ref_equals_params(self, actual, expected):
        self.assertIs(actual.query, expected.query)
        self.assertIs(actual.key, expected.key)
        self.assertIs(actual.value, expected.value)
        self.assertIs(actual.attn_mask, expected.attn_mask)

    def test_returns_SDPAParams(self):
        counter = CompileCounter()

        @torch.compile(fullgraph=True, backend=counter)
        def fn(q, k, v, m):
            return SDPAParams(q, k, v, m, 0.1, True, False)

        q = torch.randn(10)
        k = torch.randn(10)
        v = torch.randn(10)
        m = torch.randn(10)
        o = fn(q, k, v, m)
        self.assertTrue(isinstance(o, SDPAParams))
        self.assert_ref_equals_params(o, SDPAParams(q, k, v, m, 0.1, True, False))
        self.assertEqual(counter.frame_count, 1)

    def test_graph_break_SDPAParams(self):
        counter = CompileCounter()

        @torch.compile(backend=counter)
        def fn(q, k, v, m):
            z = SDPAParams(q, k, v, m, 0.1, True, False)
            torch._dynamo.graph_break()
            return z, q + 1

        q = torch.randn(10)
        k = torch.randn(10)
        v = torch.randn(10)
        m = torch.randn(10)
        o, _ = fn(q, k, v, m)
        self.assertTrue(isinstance(o, SDPAParams))
        self.assert_ref_equals_params(o, SDPAParams(q, k, v, m, 0.1, True, False))
        self.assertEqual(counter.frame_count, 2)

    def test_input_SDPAParams(self):
        counter = CompileCounter()

        @torch.compile(backend=counter)
        def fn(sdpap, q):
            torch._dynamo.graph_break()
            return sdpap, sdpap.query + q

        q = torch.randn(10)
        k = torch.randn(10)
        v = torch.randn(10)
        m = torch.randn(10)
        s = SDPAParams(q, k, v, m, 0.1, True, False)
        o, _ = fn(s, q)
        self.assertIs(o, s)
        self.assertEqual(counter.frame_count, 1)

    def test_intermediate_attr_access_SDPAParams(self):
        counter = CompileCounter()

        @torch.compile(fullgraph=True, backend=counter)
        def fn(q, k, v, m):
            q += 1
            z = SDPAParams(q, k, v, m, 0.1, True, False)
            a = z.query
            return a + 1, z, q

        q = torch.randn(10)
        k = torch.randn(10)
        v = torch.randn(10)
        m = torch.randn(10)
        _, o, _ = fn(q, k, v, m)
        expected = SDPAParams(q, k, v, m, 0.1, True, False)
        self.assert_ref_equals_params(o, expected)
        self.assertEqual(counter.frame_count, 1)

    def test_can_use_flash_attention_no_graph_break(self):
        counter = CompileCounter()

        @torch.compile(fullgraph=True, backend=counter)
        def fn(q, k, v):
            return can_use_flash_attention(SDPAParams(q, k, v, None, 0.0, True, False))

        q = torch.randn(2, 2, 8, 8)
        expected = can_use_flash_attention(SDPAParams(q, q, q, None, 0.0, True, False))
        self.assertEqual(fn(q, q, q), expected)
        self.assertEqual(counter.frame_count, 1)

    def test_sdpa_c_functions_no_graph_break(self):
        counter = CompileCounter()

        @torch.compile(fullgraph=True, backend=counter)
        def test_cur_sdpa_kernel_backends():
            return _cur_sdpa_kernel_backends()

        result = test_cur_sdpa_kernel_backends()

        self.assertIsInstance(result, list)
        self.assertEqual(counter.frame_count, 1)


if __name__ == "__main__":
    from torch._dynamo.test_case import run_tests

    run_tests()
