"""The example's CNN, shared by train.py and check.py."""
import torch


class Net(torch.nn.Module):
    """A small CNN of 784 pixels in [0, 1] (row-major 28 × 28): 10 logits."""

    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 8, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(8, 16, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2))
        self.out = torch.nn.Linear(16 * 5 * 5, 10)

    def forward(self, x):
        return self.out(self.features(x.reshape(-1, 1, 28, 28)).flatten(1))
