"""gpu-advisor: answers "which GPU should I get?" for deep learning."""

__version__ = "0.1.0"
