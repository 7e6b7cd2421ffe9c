from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt

def exposure(
    path: str,
    client: Any,
    shards: int = 0,
    from_zone: Optional[str] = None,
    to_zone: Optional[str] = None,
) -> Tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]: ...
