"""What every model's options share: a data file, or the settings of synthetic data — not both."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, model_validator

T = TypeVar("T", bound=BaseModel)


def options_of(cls: type[T], source: Any) -> T:
    """A model's options from its options, the model itself (``model.options``) or a dict."""
    if isinstance(source, cls):
        return source
    return cls.model_validate(getattr(source, "options", source))


class DataOptions(BaseModel):
    """Base of a model's options: ``data`` (a CSV or a bundled name) excludes the synthetic-data
    options named in ``SYNTHETIC``; unknown keys are errors, and so are NaN and infinity."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, allow_inf_nan=False)
    SYNTHETIC: ClassVar[tuple[str, ...]] = ("n", "dim")

    data: str | None = None

    @model_validator(mode="after")
    def _data_or_synthetic(self):
        if self.data is not None and any(getattr(self, k) is not None for k in self.SYNTHETIC):
            names = " and ".join(self.SYNTHETIC)
            raise ValueError(f"{names} describe synthetic data; they cannot be combined with data")
        return self
