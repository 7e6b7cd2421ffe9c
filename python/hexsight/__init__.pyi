import numpy as np
import numpy.typing as npt

from ._hexsight import NOT_SEEN as NOT_SEEN
from ._hexsight import CancelledError as CancelledError
from ._hexsight import HexsightError as HexsightError
from ._hexsight import TooLargeError as TooLargeError
from ._hexsight import Map as Map
from ._hexsight import generate as generate
from ._hexsight import load as load

def unpack(bits: npt.NDArray[np.uint64], cols: int) -> npt.NDArray[np.bool_]: ...
