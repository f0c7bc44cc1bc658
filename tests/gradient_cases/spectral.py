"""Gradient cases of the complex-number ops and the FFT family: real float64 inputs made complex with
tw.complex and the result made real again, so central differences check the whole chain (and with it
TensorFlow's convention for complex gradients)."""

import tensorweave as tw
from gradient_cases import GradientCase


def _mix(c):
    """A real function of a complex tensor that depends on both parts."""
    return tw.math.real(c) * 1.3 + tw.math.imag(c) ** 2


def _z(x, y):
    return tw.complex(x, y)


CASES = [
    GradientCase(
        "Complex/Real/Imag", lambda x, y: _mix(_z(x, y) * _z(y, x)), [[2, 3], [3]], ops=["Complex", "Real", "Imag"]
    ),
    GradientCase("Conj", lambda x, y: _mix(tw.conj(_z(x, y)) * _z(y, x)), [[3], [3]], ops=["Conj"]),
    GradientCase("ComplexAbs", lambda x, y: tw.abs(_z(x, y)), [[4], [4]], low=0.3, high=1.0, ops=["ComplexAbs"]),
    GradientCase("Angle", lambda x, y: tw.math.angle(_z(x, y)), [[4], [4]], low=0.2, high=1.0, ops=["Angle"]),
    GradientCase("FFT", lambda x, y: _mix(tw.signal.fft(_z(x, y))), [[2, 5], [2, 5]], ops=["FFT"]),
    GradientCase("IFFT", lambda x, y: _mix(tw.signal.ifft(_z(x, y))), [[8], [8]], ops=["IFFT"]),
    GradientCase("FFT2D", lambda x, y: _mix(tw.signal.fft2d(_z(x, y))), [[3, 4], [3, 4]], ops=["FFT2D"]),
    GradientCase("IFFT2D", lambda x, y: _mix(tw.signal.ifft2d(_z(x, y))), [[2, 3], [2, 3]], ops=["IFFT2D"]),
    GradientCase("FFT3D", lambda x, y: _mix(tw.signal.fft3d(_z(x, y))), [[2, 2, 3], [2, 2, 3]], ops=["FFT3D"]),
    GradientCase("IFFT3D", lambda x, y: _mix(tw.signal.ifft3d(_z(x, y))), [[2, 3, 2], [2, 3, 2]], ops=["IFFT3D"]),
    GradientCase("RFFT", lambda x: _mix(tw.signal.rfft(x, [6])), [[2, 5]], ops=["RFFT"]),
    GradientCase("RFFT crop", lambda x: _mix(tw.signal.rfft(x, [3])), [[5]]),
    GradientCase("IRFFT", lambda x, y: tw.signal.irfft(_z(x, y), [6]) ** 2, [[2, 4], [2, 4]], ops=["IRFFT"]),
    GradientCase("IRFFT odd", lambda x, y: tw.signal.irfft(_z(x, y), [5]) ** 2, [[3], [3]]),
    GradientCase("RFFT2D", lambda x: _mix(tw.signal.rfft2d(x, [3, 4])), [[3, 4]], ops=["RFFT2D"]),
    GradientCase("IRFFT2D", lambda x, y: tw.signal.irfft2d(_z(x, y), [3, 4]) ** 2, [[3, 3], [3, 3]], ops=["IRFFT2D"]),
    GradientCase("RFFT3D", lambda x: _mix(tw.signal.rfft3d(x, [2, 2, 3])), [[2, 2, 3]], ops=["RFFT3D"]),
    GradientCase(
        "IRFFT3D", lambda x, y: tw.signal.irfft3d(_z(x, y), [2, 2, 4]) ** 2, [[2, 2, 3], [2, 2, 3]], ops=["IRFFT3D"]
    ),
]
