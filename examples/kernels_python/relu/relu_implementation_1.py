# generated_kernels/relu/relu_implementation_1.py
import torch

def relu_kernel_impl(input_tensor):
    return torch.maximum(input_tensor, torch.zeros_like(input_tensor))

if __name__ == "__main__":
    # Test on CPU
    x = torch.tensor([-2.0, -1.0, 0.0, 1.0, 2.0])
    result = relu_kernel_impl(x)
    expected = torch.tensor([0.0, 0.0, 0.0, 1.0, 2.0])
    print(f"Test passed: {torch.allclose(result, expected)}")
